#!/usr/bin/env bash
# Installs what asc needs (Debian packages, Python packages), builds libasc.so
# and installs the Python package in editable mode. Safe to run repeatedly:
# each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(g++ make ninja-build cmake libgtest-dev libgmock-dev libbenchmark-dev libspdlog-dev libfmt-dev
  libffi-dev clang-format luajit pkgconf abigail-tools ccache)
PIP_PACKAGES=(cffi numpy pytest pytest-xdist ml_dtypes ruff matplotlib "torch==2.13.0")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c "import cffi, numpy, pytest, xdist, ml_dtypes, matplotlib, torch" >/dev/null 2>&1 || ! command -v ruff >/dev/null; then
  echo "setup: installing Python packages: ${PIP_PACKAGES[*]}"
  "$PYTHON" -m pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DASC_WERROR=ON >/dev/null
fi
cmake --build "$BUILD_DIR"

# (Re)install when asc, asc2 or pyasc is missing (an install made before a package existed does not map it) or an install
# from another checkout shadows this one.
if ! "$PYTHON" -c "import asc, asc2, pyasc, sys; sys.exit(not all(m.__file__.startswith('$PWD/python/') for m in (asc, asc2, pyasc)))" >/dev/null 2>&1; then
  echo "setup: installing the asc Python package (editable: python/pyproject.toml; the wheel is pyproject.toml's)"
  # The development install was called "asc" before the distribution became asc-model: its finder would shadow this.
  if "$PYTHON" -m pip show -q asc >/dev/null 2>&1; then
    "$PYTHON" -m pip uninstall -q -y --disable-pip-version-check asc
  fi
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e python
fi
