#!/usr/bin/env bash
# The wheel check: builds the asc-model wheel from a clean clone of this repository's HEAD (`pip wheel`, the
# pyproject.toml build: scikit-build-core, CMake), installs it into a fresh virtual environment outside the source
# tree, and runs from an empty temporary directory, with the venv's Python alone (PATH holds the venv only):
#   examples/add.py on the Model, a pyasc tutorial and examples/operators.py (the operator API).
# The tutorial is pyasc's own python/tutorials/01_add/add.py, unchanged, when PYASC_REF names pyasc's git
# directory (as for the conformance suite; it needs torch, installed into the venv then); otherwise
# examples/add_framework.py, our version of its tutorial 02.
# It also checks what the wheel holds, what the bundled libasc.so needs (`ldd`: glibc only), that import asc
# loads the shipped cffi declarations (it imports without pycparser), the metadata and asc.__abi_version__, and
# prints the wheel's size and each step's time.
#
#   scripts/wheel_check.sh            the wheel is left in build/wheel/
#   KEEP=1 scripts/wheel_check.sh     keeps the temporary clone and venv (their path is printed)
#
# The build uses pip's build isolation (what a user gets; the registry must be reachable) and compiles through
# ccache when it is installed: a clone's build/ hashes like this checkout's build/ (cmake/ccache.cmake), so after
# `make build` the library's objects come from the cache. For that the wheel's CMake is given the compilers of
# $BUILD_DIR (default build/; ccache hashes the compiler's name, and the CMake pip installs may find g++ for c++).
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONPATH ASC_LIBRARY  # the venv's package alone
src=$PWD
PYTHON=${PYTHON:-python3}
BUILD_DIR=${BUILD_DIR:-build}
if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
  CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
  export CC CXX
fi
out=$src/build/wheel
work=$(mktemp -d "${TMPDIR:-/tmp}/asc-wheel-check.XXXXXX")
if [ -n "${KEEP:-}" ]; then
  echo "wheel_check: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi

start=$SECONDS
step() {  # prints the time since the previous step
  echo "wheel_check: $1 ($((SECONDS - start)) s)"
  start=$SECONDS
}

git clone -q --no-hardlinks "$src" "$work/src"
step "cloned $(git -C "$work/src" rev-parse --short HEAD) into $work/src"

mkdir -p "$out"
rm -f "$out"/asc_model-*.whl
# build-dir=build: the clone's build/ lines up with this checkout's build/ for ccache.
"$PYTHON" -m pip wheel -q --no-deps -w "$out" -C build-dir=build "$work/src"
wheel=$(ls "$out"/asc_model-*.whl)
step "built $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB"

"$PYTHON" - "$wheel" <<'PY'
import sys
import zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["asc/__init__.py", "asc2/__init__.py", "pyasc/__init__.py", "asc/py.typed", "asc2/py.typed",
        "pyasc/py.typed", "asc/_lib/libasc.so", "asc/_lib/asc.h", "asc/_lib/_asc_cffi.py"]  # fmt: skip
missing = [n for n in need if n not in names]
stray = [n for n in names if n.endswith((".pyc", ".so.1")) or n.startswith(("lib/", "include/", "share/"))]
if missing or stray:
    sys.exit(f"wheel_check: FAIL: the wheel lacks {missing} or holds {stray}")
print(f"wheel_check: the wheel holds {len(names)} files, the library, its header and the parsed declarations")
PY

"$PYTHON" -m venv "$work/venv"
venv_python=$work/venv/bin/python
"$venv_python" -m pip install -q "$wheel"
step "installed into a fresh venv ($work/venv)"

lib=$("$venv_python" -c "import asc._ffi as f; print(f.library_path)")
case $lib in "$work/venv/"*) ;; *) echo "wheel_check: FAIL: asc loaded $lib, not the venv's" >&2 && exit 1 ;; esac
echo "wheel_check: ldd of the bundled library:"
ldd "$lib" | sed 's/^/    /'
if ldd "$lib" | grep -vE 'linux-vdso|ld-linux|lib(c|m)\.so' | grep -q '=>'; then
  echo "wheel_check: FAIL: the bundled library needs more than glibc" >&2
  exit 1
fi
# The shipped declarations are what asc loads: with pycparser unimportable, a parse of asc.h would fail.
"$venv_python" -c "import sys; sys.modules['pycparser'] = None; import asc" ||
  { echo "wheel_check: FAIL: asc parsed asc.h instead of loading the shipped declarations" >&2; exit 1; }
"$venv_python" - <<'PY'
from importlib.metadata import metadata

import asc

meta = metadata("asc-model")
for key in ("Name", "Version", "Summary", "License-Expression", "Requires-Python", "Requires-Dist"):
    print(f"    {key}: {', '.join(meta.get_all(key) or [])}")
print(f"wheel_check: asc {asc.__version__} from {asc.__file__}, C ABI {asc.__abi_version__}")
PY

run=$work/run
mkdir "$run"
cp examples/common.py examples/add.py examples/operators.py examples/add_framework.py "$run"/
tutorial=$run/add_framework.py
if [ -n "${PYASC_REF:-}" ]; then
  git --git-dir="$PYASC_REF" show HEAD:python/tutorials/01_add/add.py >"$run/tutorial_01_add.py"
  tutorial=$run/tutorial_01_add.py
  "$venv_python" -m pip install -q torch
  step "installed torch for pyasc's tutorial"
fi
for script in "$run/add.py" "$tutorial" "$run/operators.py"; do
  name=$(basename "$script")
  # PATH holds the venv alone: no compiler, nor any other program of the machine, is within reach.
  if ! (cd "$run" && PATH=$work/venv/bin "$venv_python" "$script" -r Model -v Ascend910B1) >"$run/log" 2>&1; then
    cat "$run/log" >&2
    echo "wheel_check: FAIL: $name" >&2
    exit 1
  fi
  if [ "$script" != "$run/tutorial_01_add.py" ] && ! grep -q "\[PASS\]" "$run/log"; then  # pyasc's prints nothing
    cat "$run/log" >&2
    echo "wheel_check: FAIL: no [PASS] from $name" >&2
    exit 1
  fi
  step "$name passed, run from $run with the installed wheel"
done
echo "wheel_check: PASS: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
