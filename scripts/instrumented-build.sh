#!/usr/bin/env bash
# The instrumented build (docs/RELIABILITY.md, "The test command's own time"): clang, AddressSanitizer
# and UndefinedBehaviorSanitizer over the library, the simulators and the tests, and the libFuzzer
# targets of tests/fuzz/ linked from the same objects. The sanitized suite and scripts/fuzz-smoke.sh
# both run from it, so the test command instruments the tree once.
#   scripts/instrumented-build.sh [DIR [TARGET...]]   configure and build DIR (default build-asan):
#                                                     every target, or the ones named
#   scripts/instrumented-build.sh --cmake-args        print the configure arguments only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# No precompiled header here: CMake names clang's by its absolute path after -Xclang, which the
# compiler cache's base_dir cannot rewrite, so every instrumented compile missed the cache in a
# clone in another folder (docs/RELIABILITY.md, "The compiler cache across folders"). Each unity
# batch compiles about 30% slower cold; a second run hits.
args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DDW_FUZZ=ON -DDW_PCH=OFF)
if [ "${1:-}" = "--cmake-args" ]; then
  echo "${args[@]}"
  exit 0
fi
command -v clang++ >/dev/null ||
  { echo "instrumented build: clang++ is missing (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2; exit 2; }
dir=${1:-$root/build-asan}
shift || true
DW_BUILD_TARGETS="$*" exec "$root/scripts/build.sh" "$dir" "${args[@]}"
