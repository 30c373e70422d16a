#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (clang, ASan+UBSan: the instrumented build the
# sanitized suite also runs from, build-asan, where only the targets are built when it is new) and runs each for
# DW_FUZZ_SECONDS seconds (20 by default) from its seed corpus (tests/fuzz/make_seeds.py) and its
# regression inputs (tests/fuzz/regressions/<target>/, every input that once crashed). Fails when
# any target crashes, hangs (an input over 10 s), leaks, runs out of memory (2 GiB) or does not
# build. Prints one line per target: executions, executions per second, coverage (edges),
# features and the corpus size (inputs kept) reached. docs/RELIABILITY.md explains the targets and what they found.
#   scripts/fuzz-smoke.sh                 every target, 20 s each (the test command's stage)
#   DW_FUZZ_SECONDS=3600 scripts/fuzz-smoke.sh   (what bench/fuzz.sh runs)
#   DW_FUZZ_TARGETS="jsonrpc schema" scripts/fuzz-smoke.sh   some targets only
#   DW_FUZZ_TARGETS="jsonrpc openlineage http_serve" DW_FUZZ_PARALLEL=3 nice -n 19 bench/fuzz.sh
#                                         the hour-long runs of docs/RELIABILITY.md, side by side
# Environment: DW_FUZZ_BUILD (build folder, default build-asan), DW_FUZZ_JOBS (parallel builds),
# DW_FUZZ_PARALLEL (targets run at once, 1 by default; the long runs use several),
# DW_FUZZ_SEED (libFuzzer's -seed; 1 by default so that the test command's run is repeatable for a
# given commit: the same inputs in the same order on every machine, a faster one only going further
# along them; a code change changes the coverage the mutations follow; 0 draws a new seed each
# run, as bench/fuzz.sh does to search wider).
# A failing target's crashing input is printed in base64 when it is under 8 KiB, so a CI log alone
# is enough to reproduce it (base64 -d > crash; build-asan/tests/fuzz/fuzz_<target> crash).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${DW_FUZZ_SECONDS:-20}
seed=${DW_FUZZ_SEED:-1}
case $seed in ''|*[!0-9]*) echo "fuzz: DW_FUZZ_SEED must be a number, not '$seed'" >&2; exit 2 ;; esac
build=${DW_FUZZ_BUILD:-build-asan}
jobs=${DW_FUZZ_JOBS:-$(nproc)}

command -v clang++ >/dev/null || { echo "fuzz: clang++ is missing (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2; exit 2; }
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^DW_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz: $build is not an instrumented build with the fuzz targets (DW_FUZZ=ON); remove it or set DW_FUZZ_BUILD" >&2
  exit 1
fi
build_start=$(date +%s)
DW_BUILD_JOBS=$jobs scripts/instrumented-build.sh "$build" fuzz_all || { echo "fuzz: build failed" >&2; exit 1; }
echo "fuzz: build took $(( $(date +%s) - build_start )) s" >&2

seeds="$build/fuzz-seeds"
rm -rf "$seeds" && python3 tests/fuzz/make_seeds.py "$seeds" || { echo "fuzz: seed corpus failed" >&2; exit 1; }

dict_of() {
  case $1 in
    jsonrpc|openlineage|dbt_manifest|platform_responses|schema|notify_receivers) echo tests/fuzz/dict/json.dict ;;
    workspace|scenario|kestra_flow|flink_manifests) echo tests/fuzz/dict/yaml.dict ;;
    http_request) echo tests/fuzz/dict/http.dict ;;
    http_serve) echo tests/fuzz/dict/http_serve.dict ;;
    approval_link) echo tests/fuzz/dict/approval_link.dict ;;
    desk_requests) echo tests/fuzz/dict/desk.dict ;;
    cron_duration) echo tests/fuzz/dict/cron.dict ;;
    sql_table_refs) echo tests/fuzz/dict/sql.dict ;;
  esac
}

targets=${DW_FUZZ_TARGETS:-$(cd "$build/tests/fuzz" && ls fuzz_* | sed 's/^fuzz_//' | grep -v '\.' | sort)}
parallel=${DW_FUZZ_PARALLEL:-1}
case $parallel in ''|0|*[!0-9]*) echo "fuzz: DW_FUZZ_PARALLEL must be a positive number, not '$parallel'" >&2; exit 2 ;; esac

# Runs target $1 and writes its result line to $build/fuzz-artifacts/$1/result (the last field
# "ok" or a failure), its failure details to stderr.
run_target() {
  local t=$1
  local bin="$build/tests/fuzz/fuzz_$t"
  local work="$build/fuzz-corpus/$t" artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$work" "$artifacts" "$seeds/$t"
  rm -f "$artifacts/result"
  if [ ! -x "$bin" ]; then
    echo "fuzz: no target $t" >&2
    printf '%-20s %10s %9s %7s %8s %7s %s\n' "$t" ? ? ? ? ? "FAILED (no such target)" >"$artifacts/result"
    return
  fi
  local regressions=()
  [ -d "tests/fuzz/regressions/$t" ] && regressions=("tests/fuzz/regressions/$t")
  local dict dict_flag=()
  dict=$(dict_of "$t")
  [ -n "$dict" ] && dict_flag=(-dict="$dict")
  local log="$artifacts/run.log"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    timeout -s KILL $((seconds + 120)) "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -seed="$seed" -artifact_prefix="$artifacts/" "${dict_flag[@]}" \
      "$work" "$seeds/$t" "${regressions[@]}" >"$log" 2>&1
  local rc=$?
  local execs speed cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  # corp: the inputs libFuzzer keeps for the coverage reached (the corpus kept in $work).
  corp=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  local result=ok
  if [ $rc != 0 ]; then
    result="FAILED (exit $rc; log $log)"
    # A target still running two minutes past its time is killed: libFuzzer itself hung (it once
    # did while reporting an out-of-memory), and the smoke run must end either way.
    [ $rc = 137 ] && result="FAILED (killed after $((seconds + 120)) s: hung; log $log)"
    grep -E 'ERROR: |SUMMARY: |runtime error|property broken|Test unit written' "$log" | head -5 >&2
    local a
    for a in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/slow-unit-*; do
      [ -f "$a" ] || continue
      if [ "$(stat -c %s "$a")" -lt 8192 ]; then
        echo "fuzz: $t input $(basename "$a") in base64:" >&2; base64 -w 0 "$a" >&2; echo >&2
      else
        echo "fuzz: $t input $a is $(stat -c %s "$a") bytes (not printed)" >&2
      fi
    done
  fi
  printf '%-20s %10s %9s %7s %8s %7s %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result" >"$artifacts/result"
}

# Sequential (the default): each line as its target ends. DW_FUZZ_PARALLEL targets at a time:
# every line once all have ended.
failed=()
report() {
  local line
  line=$(cat "$build/fuzz-artifacts/$1/result" 2>/dev/null || printf '%-20s %s' "$1" "FAILED (no result)")
  echo "$line"
  [ "${line##* ok}" = "" ] || failed+=("$1")
}
printf '%-20s %10s %9s %7s %8s %7s %s\n' target execs execs/s cov ft corp result
running=0
for t in $targets; do
  if [ "$parallel" -gt 1 ]; then
    run_target "$t" &
    running=$((running + 1))
    if [ $running -ge "$parallel" ]; then wait -n; running=$((running - 1)); fi
  else
    run_target "$t"
    report "$t"
  fi
done
if [ "$parallel" -gt 1 ]; then
  wait
  for t in $targets; do report "$t"; done
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: every target ran ${seconds} s (seed $seed) without a crash, hang, leak or out-of-memory"
