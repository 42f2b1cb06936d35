"""The command line every example shares: -r backend, -v platform."""

import argparse

import asc.runtime.config as config


def parse_args(doc: str, parser: argparse.ArgumentParser = None) -> argparse.Namespace:
    """Parses -r/-v (plus anything `parser` already has) and selects the backend and platform."""
    parser = parser or argparse.ArgumentParser()
    parser.description = doc.splitlines()[0]
    parser.add_argument("-r", default="Model", choices=[b.value for b in config.Backend], help="backend")
    parser.add_argument("-v", default=None, choices=[p.value for p in config.Platform], help="platform")
    args = parser.parse_args()
    config.set_platform(config.Backend(args.r), args.v and config.Platform(args.v))
    return args
