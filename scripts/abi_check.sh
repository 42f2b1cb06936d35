#!/usr/bin/env bash
# The C ABI stability check: compares libasc.so with the recorded baseline of
# its major version (abi/libasc.so.<major>.abi) using libabigail's abidiff.
# Passes when nothing changed or only functions/types were added; fails on
# anything that would break a program built against the baseline (a removed
# function, a changed struct layout or signature, a new SONAME).
#
#   scripts/abi_check.sh LIB            check LIB against its baseline
#   scripts/abi_check.sh --record LIB   write LIB's ABI as the baseline
# (docs/c-abi.md, "ABI stability", says when recording is allowed.)
set -euo pipefail
cd "$(dirname "$0")/.."

record=0
if [ "${1:-}" = "--record" ]; then
  record=1
  shift
fi
lib=${1:?usage: abi_check.sh [--record] path/to/libasc.so}
baseline=${ASC_ABI_BASELINE:-}

soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
major=${soname##*.so.}
[ -n "$baseline" ] || baseline=abi/$soname.abi

abi_of() {  # the ABI of the exported C functions and the public header's types, without paths
  abidw --exported-interfaces-only --headers-dir include/asc --drop-private-types --no-corpus-path \
    --no-comp-dir-path --no-show-locs "$1"
}

if ((record)); then
  abi_of "$lib" >"$baseline"
  echo "abi: recorded $baseline ($(grep -c '<function-decl' "$baseline") functions)"
  exit 0
fi
if [ ! -f "$baseline" ]; then
  echo "abi: FAIL: no baseline $baseline for $soname (ABI major $major); a major bump records one" >&2
  exit 1
fi

# abidiff's exit status is a bit set: 1 error, 2 usage error, 4 the ABI changed, 8 a symbol was removed. A changed
# layout or signature only sets 4, as an addition does, so its summary lines tell the two apart. Harmless changes
# (an enumerator added at the end, say) are filtered out by abidiff itself.
set +e
report=$(abidiff --exported-interfaces-only "$baseline" "$lib" 2>&1)
status=$?
set -e
if ((status & 3)); then
  echo "$report" >&2
  echo "abi: FAIL: abidiff could not compare $lib with $baseline (status $status)" >&2
  exit 1
fi
broken=$(echo "$report" | grep -E 'changes summary: ([1-9][0-9]* Removed|[0-9]+ Removed, [1-9][0-9]* Changed)' || true)
if ((status & 8)) || [ -n "$broken" ]; then
  echo "$report" >&2
  echo "abi: FAIL: $lib breaks the ABI recorded in $baseline; a breaking change needs a major version bump" >&2
  exit 1
fi
# A new major has a new SONAME and so a baseline of its own.
if ! grep -q "soname='$soname'" "$baseline"; then
  echo "abi: FAIL: $baseline is not the baseline of $soname" >&2
  exit 1
fi
if ((status & 4)); then
  echo "$report"
  echo "abi: OK: compatible additions to $baseline"
else
  echo "abi: OK: $lib matches $baseline"
fi
