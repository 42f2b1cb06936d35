#!/usr/bin/env bash
# The hardening checks (docs/hardening.md), run by CI after the test suite:
#   1. ASan+UBSan: the library, the C++ tests and the fuzzer built with clang's
#      AddressSanitizer and UndefinedBehaviorSanitizer; ctest, then the whole
#      Python suite against the instrumented library;
#   2. the fuzzer: fuzz_capi for FUZZ_RUNS inputs (default 25000, about two
#      minutes; at most FUZZ_SECONDS, default 240) from the corpus in
#      test/fuzz/corpus, with a fixed seed, so that a run here repeats what CI
#      ran (ctest has replayed the corpus and test/fuzz/regressions);
#   3. TSan: the threaded C ABI tests (threads, queues, fork, SIGINT, handles) under ThreadSanitizer.
# Each build has a directory of its own (build-asan, build-tsan) and leaves the
# Python package's library alone. Any finding fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_RUNS=${FUZZ_RUNS:-25000}
FUZZ_SECONDS=${FUZZ_SECONDS:-240}
FUZZ_SEED=${FUZZ_SEED:-1}
CLANG_VERSION=16

scripts/setup.sh  # the Python packages and the Debian packages the tests need
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's packages (scripts/test.sh says why)
if ! command -v clang-$CLANG_VERSION >/dev/null || ! dpkg -s libclang-rt-$CLANG_VERSION-dev >/dev/null 2>&1; then
  echo "hardening: installing clang-$CLANG_VERSION and its sanitizer runtimes"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq clang-$CLANG_VERSION libclang-rt-$CLANG_VERSION-dev >/dev/null
fi
export CC=clang-$CLANG_VERSION CXX=clang++-$CLANG_VERSION
asan_runtime=$(clang-$CLANG_VERSION -print-file-name=libclang_rt.asan-x86_64.so)

configure() {  # configure DIR SANITIZERS EXTRA_CMAKE_ARGS...
  local dir=$1 sanitize=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DASC_SANITIZE="$sanitize" -DASC_BUILD_BENCH=OFF "$@" >/dev/null
}

echo "== ASan+UBSan: build (build-asan)"
configure build-asan address,undefined -DASC_BUILD_FUZZ=ON
cmake --build build-asan
# Python loads the instrumented library from here (ASC_LIBRARY wants asc.h beside it).
mkdir -p build-asan/python-lib
ln -sf ../capi/libasc.so build-asan/python-lib/libasc.so
ln -sf ../capi/libasc.so.1 build-asan/python-lib/libasc.so.1
ln -sf "$PWD/include/asc/asc.h" build-asan/python-lib/asc.h

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== ASan+UBSan: ctest"
# The installed-tree test builds with the system compiler, outside the sanitizer build; the normal suite runs it.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 ctest -j2 --output-on-failure -E "install.tree|example.lua")
# luajit is not instrumented: it gets the sanitizer runtime preloaded.
(cd build-asan && LD_PRELOAD=$asan_runtime ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ctest --output-on-failure \
  -R example.lua)

echo "== ASan+UBSan: the Python suite (every test; of parametrised ones the first case and every fourth)"
# CPython is not instrumented and keeps memory to its exit on purpose: no leak detection here (ctest has it).
# The instrumented library runs kernels several times slower: a launch's time budget (60 s by default, which
# catches endless loops) is raised to match.
ASC_TIMEOUT_S=600 ASC_TEST_SAMPLE=4 ASC_LIBRARY=$PWD/build-asan/python-lib/libasc.so LD_PRELOAD=$asan_runtime \
  ASC_TEST_CC="clang-$CLANG_VERSION -fsanitize=address,undefined -shared-libasan" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 python3 -m pytest -q -p no:cacheprovider -n "${ASC_TEST_JOBS:-auto}" \
  test/python

echo "== fuzz: $FUZZ_RUNS inputs (seed $FUZZ_SEED, at most ${FUZZ_SECONDS}s) from test/fuzz/corpus"
# (ctest above replayed test/fuzz/regressions and the corpus.) New inputs go to a scratch directory, so the
# corpus in the repository stays as it is; a finding is kept in build-asan/fuzz-findings/ and printed.
mkdir -p build-asan/fuzz-findings
scratch=$(mktemp -d)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 build-asan/test/fuzz/fuzz_capi -timeout=10 -rss_limit_mb=4096 \
  -max_len=8192 -runs="$FUZZ_RUNS" -max_total_time="$FUZZ_SECONDS" -seed="$FUZZ_SEED" -print_final_stats=1 \
  -artifact_prefix=build-asan/fuzz-findings/ \
  "$scratch" test/fuzz/corpus
rm -rf "$scratch"

echo "== TSan: the threaded C ABI tests (build-tsan)"
configure build-tsan thread
cmake --build build-tsan --target test_capi
# Threads, asynchronous queues (their exit handler too), fork, SIGINT and the live-handle table. die_after_fork=0:
# the fork test's child starts the simulator's threads anew, which TSan otherwise refuses after a threaded fork.
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 ctest -j2 --output-on-failure \
  -R "Thread|Async|SideBySide|Destroying|DestroyedHandle|Sigint|Fork")
echo "hardening: PASS"
