"""Summarises a round-trip report (roundtrip.py): kernels that matched the Model
bit for bit, kernels not covered and why, and mismatches. Exits non-zero on any
mismatch or when nothing round-tripped."""

from __future__ import annotations

import collections
import json
import sys


def main(path: str) -> int:
    records = [json.loads(line) for line in open(path)]
    by_status = collections.Counter(r["status"] for r in records)
    ok = sorted({r["kernel"] for r in records if r["status"] == "ok"})
    counts = f"{by_status['not covered']} not covered, {by_status['mismatch']} mismatches"
    same = f"{by_status['ok']} bit-identical to the Model ({len(ok)} kernel names)"
    print(f"round trip: {len(records)} launches, {same}, {counts}")
    reasons: dict[str, set[str]] = collections.defaultdict(set)
    for r in records:
        if r["status"] == "not covered":
            reasons[r["detail"].split("\n")[0]].add(r["kernel"])
    for reason, kernels in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  not covered ({len(kernels)} kernel names): {reason}: {', '.join(sorted(kernels))}")
    for r in records:
        if r["status"] == "mismatch":
            print(f"  MISMATCH {r['kernel']}: {r['detail']}")
    return 1 if by_status["mismatch"] or not ok else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
