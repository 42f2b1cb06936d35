#!/usr/bin/env bash
# Runs every check: formatting and the layering check (scripts/check_layers.py), the C++ tests (ctest)
# and the Python tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PYTHON=${PYTHON:-python3}
# This checkout's packages, whatever the environment's editable install points at (another checkout's
# setup.sh re-points it: a run must not start testing that checkout's code half-way).
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

echo "== format: clang-format, ruff and the layering check"
"$PYTHON" scripts/check_layers.py
git ls-files -co --exclude-standard '*.cpp' '*.h' '*.c' | grep -v '^python/asc/_lib/' |
  xargs clang-format --dry-run -Werror
ruff check python examples test/python test/fuzz bench
ruff format --check python examples test/python test/fuzz bench

echo "== C++ tests (ctest)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2

# ctest's roundtrip.suite has run the whole Python suite already, with every launch also proven on the CPU:
# a second plain run would only repeat it. Builds without it (the sanitizer builds) run pytest here.
if ctest --test-dir "$BUILD_DIR" -N | grep -q 'roundtrip.suite'; then
  echo "== Python tests: run by ctest's roundtrip.suite (build/test/roundtrip/pytest.log)"
else
  echo "== Python tests (pytest)"
  "$PYTHON" -m pytest -q -n "${ASC_TEST_JOBS:-auto}" test/python
fi
