#!/usr/bin/env bash
# The compiler cache never decides whether a build works (scripts/compiler-cache.sh): a cache
# folder that cannot be made, one on a read-only or full file system, corrupted entries and a
# different compiler each still compile, and a cache that is set off says so in one line.
# Run by CTest (label unit); exits 77 (skipped) where ccache is not installed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v ccache >/dev/null || { echo "ccache is not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
printf '#include <vector>\nint f() { std::vector<int> v{1, 2}; return v[1]; }\n' >a.cc
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# Sources the cache settings with DW_CCACHE_DIR=$1 and compiles a.cc through ccache; prints the
# settings' stderr and sets off=1 when the cache was set off.
compile() {
  rm -f a.o err
  off=$(DW_CCACHE_DIR=$1 bash -c "source '$root/scripts/compiler-cache.sh' 2>err;
    echo \${CCACHE_DISABLE:-0}; ccache ${2:-g++} -c a.cc -o a.o" 2>>err | head -1)
  [ -s a.o ] || fail "$3: nothing compiled ($(cat err))"
}

echo x >afile
compile "$work/afile/sub" g++ "a folder under a file"
[ "$off" = 1 ] || fail "a folder that cannot be made did not set the cache off"
grep -q "^build: compiler cache off (cannot make the folder $work/afile/sub); compiling without it$" err ||
  fail "no one-line message for a folder that cannot be made: $(cat err)"
[ "$(wc -l <err)" = 1 ] || fail "more than one line for a folder that cannot be made"

compile /proc/dw-cache g++ "a read-only file system"
[ "$off" = 1 ] || fail "a read-only file system did not set the cache off"

compile "$work/good" g++ "a new cache"
[ "$off" = 0 ] || fail "a usable cache was set off: $(cat err)"
[ -s err ] && fail "a usable cache printed: $(cat err)"
compile "$work/good" g++ "a hit"
read -r hits misses < <(DW_CCACHE_DIR=$work/good bash -c "source '$root/scripts/compiler-cache.sh'; dw_cache_stats")
[ "$hits" = 1 ] && [ "$misses" = 1 ] || fail "expected 1 hit and 1 miss, got $hits and $misses"

entries=$(find "$work/good" -type f -path "$work/good/?/?/*")
[ -n "$entries" ] || fail "the cache holds no entries to corrupt"
for f in $entries; do printf 'not a cache entry' >"$f"; done
compile "$work/good" g++ "corrupted entries"
nm a.o >syms; grep -q '_Z1fv' syms || fail "corrupted entries gave an object without f()"

if command -v clang++ >/dev/null; then
  compile "$work/good" clang++ "another compiler on the same cache"
fi

mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
  compile "$work/full/cache" g++ "a cache made before its disk filled"
  dd if=/dev/zero of=full/fill bs=1k count=200 2>/dev/null
  rm -f a.o
  compile "$work/full/cache" g++ "a full disk under a cache in use"
  compile "$work/full/new" g++ "a cache on a full disk"
  [ "$off" = 1 ] || fail "a cache folder on a full disk did not set the cache off"
else
  echo "no tmpfs mount here (not root): the full-disk cases are not run"
fi

[ $failures = 0 ] && echo "compiler cache: every case compiled"
exit $((failures > 0))
