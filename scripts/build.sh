#!/usr/bin/env bash
# Configures and builds Data Workers with CMake and Ninja. All build output goes to stderr, so that
# callers that speak a protocol on stdout (start-agent.sh) stay clean.
#   scripts/build.sh [BUILD_DIR] [extra cmake args...]   default BUILD_DIR: build
# A new build directory is a Release build (what packagers and users type, and what the
# benchmarks' figures come from) unless the extra args say otherwise; with extra args an existing
# directory is configured again with them (e.g. -DCMAKE_BUILD_TYPE=Release on an older one).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
jobs=${DW_BUILD_JOBS:-$(nproc)}
# The compiler cache (scripts/compiler-cache.sh) makes a rebuild of unchanged sources cheap, in
# this folder or a clean clone in another; the build is the same without it.
source "$root/scripts/compiler-cache.sh"
launcher=($(dw_cache_launcher))
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$root" -B "$dir" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >&2
elif [ $# -gt 0 ]; then
  cmake -S "$root" -B "$dir" "$@" >&2
fi
# DW_BUILD_TARGETS limits what is built (e.g. "dw" for a quick first start).
ninja -C "$dir" -j "$jobs" ${DW_BUILD_TARGETS:-} >&2
