"""asc.experimental: APIs of pyasc's newer release (pyasc-dev) that are still experimental there.
``asc.experimental.asctile`` is its tile API, built here over asc2's machinery (docs/tile-api.md,
"asctile (pyasc's newer tile API)"). Importing this package imports nothing else."""

__all__: list = []
