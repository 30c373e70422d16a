#!/usr/bin/env bash
# The compiler cache of every build the scripts make (ccache; docs/RELIABILITY.md, "The test
# command's own time"). Sourced, not run: `source scripts/compiler-cache.sh` exports ccache's settings and
# defines two functions.
#
#   dw_cache_launcher   prints the CMake argument that puts ccache in front of the compiler, or
#                       nothing when ccache is missing or switched off
#   dw_cache_stats      prints "HITS MISSES" so far (ccache's counters; "0 0" without a cache)
#
# The cache lives outside the source tree (DW_CCACHE_DIR, default ~/.cache/dw-ccache) and keys on
# paths relative to the checkout (base_dir, no hash_dir), so a clean clone in another folder hits
# what the same machine compiled before (no compile line carries the checkout's path in a
# definition: the tests' paths are in one generated source, tests/support/build_paths.h, which
# alone misses). The build never depends on it: a cache folder that cannot
# be made or written, or a ccache that does not answer, switches the cache off for this run with
# one line on stderr (CCACHE_DISABLE makes the launcher run the compiler straight away), and
# ccache itself treats a corrupted entry or one from another compiler version as a miss and a
# store that fails (a full disk) as no store. DW_CCACHE=0 switches it off on purpose.

dw_cache_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CCACHE_DIR=${DW_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dw-ccache}
export CCACHE_BASEDIR=$dw_cache_root
export CCACHE_NOHASHDIR=1
# Precompiled headers (DW_PCH) are cacheable only with these; the sources use no __TIME__ or
# __DATE__, and a header's time stamps are no part of what it compiles to.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${DW_CCACHE_MAXSIZE:-8G}
# The compiler's identity is its content, not its time stamp: a reinstalled compiler of the same
# version still hits, another version misses.
export CCACHE_COMPILERCHECK=content

dw_cache_off() { # reason
  export CCACHE_DISABLE=1
  echo "build: compiler cache off ($1); compiling without it" >&2
}

if [ "${DW_CCACHE:-1}" = 0 ]; then
  export CCACHE_DISABLE=1
elif ! command -v ccache >/dev/null; then
  : # no ccache: dw_cache_launcher prints nothing and the builds run the compiler directly
elif ! mkdir -p "$CCACHE_DIR" 2>/dev/null || [ ! -d "$CCACHE_DIR" ]; then
  dw_cache_off "cannot make the folder $CCACHE_DIR"
elif ! probe=$(mktemp "$CCACHE_DIR/.probe.XXXXXX" 2>/dev/null) || ! echo ok >"$probe" 2>/dev/null; then
  [ -n "${probe:-}" ] && rm -f "$probe"
  dw_cache_off "cannot write in $CCACHE_DIR"
elif ! rm -f "$probe" || ! timeout 20 ccache --print-stats >/dev/null 2>&1; then
  dw_cache_off "ccache does not answer for $CCACHE_DIR"
fi

dw_cache_launcher() {
  command -v ccache >/dev/null && [ "${DW_CCACHE:-1}" != 0 ] && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  return 0
}

dw_cache_stats() {
  if [ -n "${CCACHE_DISABLE:-}" ] || ! command -v ccache >/dev/null; then
    echo "0 0"; return 0
  fi
  timeout 20 ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
    $1 == "cache_miss" { m += $2 }
    END { print h + 0, m + 0 }'
}
