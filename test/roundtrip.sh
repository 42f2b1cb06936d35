#!/usr/bin/env bash
# ctest roundtrip.suite: the Python suite with every Model launch also run as emitted Ascend C on the CPU
# (test/python/roundtrip.py), then the report's summary. $1: a scratch directory, emptied first.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$1" && mkdir -p "$1"
python3 -m pytest -q -p no:cacheprovider -n "${ASC_TEST_JOBS:-auto}" "$here/python" > "$1/pytest.log" 2>&1
status=$?
if [ $status -ne 0 ]; then  # this is the suite's only run in `make test`: show what failed
  grep -E '^(FAILED|ERROR) ' "$1/pytest.log" || true
  tail -n 60 "$1/pytest.log"
else
  tail -n 3 "$1/pytest.log"
fi
python3 "$here/python/roundtrip_report.py" "$ASC_ROUNDTRIP" || status=1
[ $status -eq 0 ] && echo "roundtrip: PASS"
exit $status
