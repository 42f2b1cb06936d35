#!/usr/bin/env bash
# The C++ test suite (ctest: the IR, the simulator, the C ABI, the C and Lua
# examples, the installed tree) built with AddressSanitizer and
# UndefinedBehaviorSanitizer, then the threaded C ABI tests with
# ThreadSanitizer. Each sanitizer build has a directory of its own and leaves
# the Python package's library alone.
set -euo pipefail
cd "$(dirname "$0")/.."

run() {  # run NAME SANITIZERS TARGET CTEST_ARGS...
  local dir=build-$1 sanitize=$2 target=$3
  shift 3
  echo "== sanitizers: $sanitize ($dir)"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASC_SANITIZE="$sanitize" \
    -DASC_BUILD_BENCH=OFF >/dev/null
  cmake --build "$dir" --target "$target"
  (cd "$dir" && ctest -j2 --output-on-failure "$@")
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Not the programs built outside the sanitizer build (the installed-tree check, luajit): they would need the
# sanitizer's runtime preloaded to load an instrumented libasc.so.
run asan address,undefined all -E "install.tree|example.lua"
export TSAN_OPTIONS=halt_on_error=1
run tsan thread test_capi -R "Thread|Async|SideBySide|Destroying"
