#!/usr/bin/env bash
# Sets everything up and runs every test:
#  1. the GoogleTest suite and the scenario replays (ctest) against both state-store backends, with
#     a throwaway PostgreSQL server started and stopped around it, from the Release build; among
#     them the docs' own tests (tests/docs/: docs/quickstart.md's commands, docs/assistants.md's
#     client configurations, every link between the docs);
#  1b. the README's first command, scripts/demo.sh (both seed incidents replayed end to end);
#  2. the official MCP conformance suite against `dw serve --conformance-fixtures`;
#  3. the official TypeScript SDK client against each agent through start-agent.sh; Google's own
#     BigQuery and auth clients against dw-sim bigquery (and the product's statements through them),
#     and the product's Snowflake SQL API exchanges checked against the API's published shapes;
#  4. Claude Code itself: `claude mcp add` for each agent, then `claude mcp list`;
#  5. the desk's pages in headless Chromium (playwright-core, axe-core; tests/browser/);
#  6. the instrumented build (scripts/instrumented-build.sh: clang, ASan + UBSan) and, from it,
#     the same suite under the sanitizers, then every libFuzzer target of tests/fuzz/ for
#     DW_FUZZ_SECONDS (20) s, one per core at a time (scripts/fuzz-smoke.sh).
# Every build goes through the compiler cache (scripts/compiler-cache.sh); the result never depends
# on it. The end of the log repeats each stage's time and the cache's hit rate.
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   the loop for a change: the Release build of dw, dw-sim and the tests,
#                             and the suite with the scenarios; no sanitizers, fuzzing or browsers
# DW_SKIP_SANITIZERS=1 leaves out step 6. Exits non-zero if any stage fails; the last line counts
# passed and failed tests.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=0
case ${1:-} in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

started=$(date +%s); stage_name=""; stage_start=$started; stage_times=()
# Starts a stage: closes the previous one's time and prints the next one's heading. The times are
# repeated at the end, where CI's log keeps them, so a run near CI's limit shows what grew.
stage() {
  local now; now=$(date +%s)
  [ -n "$stage_name" ] && stage_times+=("$(printf '%6d s  %s' $((now - stage_start)) "$stage_name")")
  stage_name=$1; stage_start=$now
  if [ -n "$1" ]; then echo "== $1 (at $((now - started)) s)" >&2; fi
}

if [ $quick = 1 ]; then
  stage "setup (Debian packages)"
  scripts/setup.sh --no-node || { echo "test: setup failed" >&2; exit 2; }
else
  stage "setup (Debian packages, npm tools)"
  scripts/setup.sh || { echo "test: setup failed" >&2; exit 2; }
  source <(scripts/node-tools.sh --env)
fi
# After setup, which installs ccache: the cache's counters before the first build.
source scripts/compiler-cache.sh
read -r cache_hits0 cache_misses0 < <(dw_cache_stats)
# Prints the stage times and the compiler cache's hit rate over this run's compiles.
summary() {
  stage ""
  echo "stage times (total $(( $(date +%s) - started )) s):"
  for t in "${stage_times[@]}"; do echo "$t"; done
  local hits misses
  read -r hits misses < <(dw_cache_stats)
  hits=$((hits - cache_hits0)); misses=$((misses - cache_misses0))
  if [ -n "${CCACHE_DISABLE:-}" ] || ! command -v ccache >/dev/null; then
    echo "compiler cache: off"
  elif [ $((hits + misses)) = 0 ]; then
    echo "compiler cache: no compiles this run ($CCACHE_DIR)"
  else
    echo "compiler cache: $hits of $((hits + misses)) compiles hit ($((100 * hits / (hits + misses)))%; $CCACHE_DIR)"
  fi
}

passed=0; failed=0; failed_stages=(); failure_details=()
# Ends the run: the stage times and cache, what failed (CI keeps only the tail of the log), the
# count, and the exit code.
finish() {
  summary
  if [ ${#failed_stages[@]} -gt 0 ]; then
    for d in "${failure_details[@]}"; do echo "$d"; done
    echo "test: FAILED stages: ${failed_stages[*]}"
  fi
  echo "all: $passed passed, $failed failed"
  [ ${#failed_stages[@]} -eq 0 ]
  exit
}
# Adds a stage's counts; a stage that crashed without counts counts as one failure.
tally() { # name exit_code passed failed
  passed=$((passed + $3)); failed=$((failed + $4))
  if [ "$2" != 0 ]; then failed_stages+=("$1"); [ "$4" = 0 ] && failed=$((failed + 1)); fi
}
# CTest entries run at once: two per core (DW_TEST_JOBS sets it). Most of the suite's time is
# waiting (on subprocesses, simulators' delays, faults' timeouts, the PostgreSQL server), so one
# per core leaves the cores half idle: the Release suite took 184 s at -j2 and 140 s at -j4 here.
test_jobs=${DW_TEST_JOBS:-$(( 2 * $(nproc) ))}
# Runs one build's suite and tallies it in GoogleTest cases, not CTest entries: an entry of
# dw_tests runs a group of cases (cmake/test_groups.cmake) and leaves their results in
# <build>/test-results/<entry>.xml. A passing entry counts its cases; a failing one counts its
# failed cases (one when it ended before writing them: a crash, a timeout).
run_ctest() { # name build_dir
  local log; log=$(mktemp)
  rm -rf "$2/test-results"
  scripts/with-postgres.sh ctest --test-dir "$2" --output-on-failure -j "$test_jobs" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local total fail
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  fail=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
  local passed_cases=$(( ${total:-0} - ${fail:-0} )) failed_cases=${fail:-0}
  local failed_entries xml base cases failures skipped_cases=0
  failed_entries=$(sed -n '/The following tests FAILED/,$p' "$log" |
    sed -n 's/^[[:space:]]*[0-9]* - \(.*\) ([^)]*)$/\1/p' | sed 's/[^A-Za-z0-9_.-]/_/g')
  for xml in "$2"/test-results/*.xml; do
    [ -f "$xml" ] || continue
    base=$(basename "$xml" .xml)
    cases=$(sed -n 's/^<testsuites tests="\([0-9]*\)" failures="\([0-9]*\)".*/\1/p' "$xml")
    failures=$(sed -n 's/^<testsuites tests="\([0-9]*\)" failures="\([0-9]*\)".*/\2/p' "$xml")
    [ -n "$cases" ] || continue
    skipped_cases=$((skipped_cases + $(sed -n 's/^ *<testsuite name=.* skipped="\([0-9]*\)".*/\1/p' "$xml" | awk '{s += $1} END {print s + 0}')))
    if echo "$failed_entries" | grep -qxF "$base"; then
      [ "${failures:-0}" -gt 1 ] && failed_cases=$((failed_cases + failures - 1))
    elif [ "$cases" -gt 1 ]; then
      passed_cases=$((passed_cases + cases - 1))
    fi
  done
  # Skipped cases (no PostgreSQL server, a helper that runs only as a child) count as passed, as
  # CTest counts them; how many is said so that a suite that skipped much does not look whole.
  echo "$1: $passed_cases case(s) passed ($skipped_cases of them skipped), $failed_cases failed (${total:-0} CTest entries)"
  [ "$rc" != 0 ] && failure_details+=("$1: $(sed -n '/The following tests FAILED/,$p' "$log" | head -40)")
  rm -f "$log"
  tally "$1" "$rc" "$passed_cases" "$failed_cases"
}

stage "build"
# The normal (unsanitized) pass is a Release build: the one users get, so no extra build is needed.
# The quick loop builds what the suite runs (not the benchmarks).
targets=""
[ $quick = 1 ] && targets="dw dw-sim dw_tests"
DW_BUILD_TARGETS=$targets scripts/build.sh build -DCMAKE_BUILD_TYPE=Release ||
  { echo "test: build failed" >&2; tally build 1 0 1; finish; }

stage "unit and integration tests, scenario replays (SQLite and PostgreSQL state stores)"
run_ctest ctest build

[ $quick = 1 ] && finish

stage "the README's first command (scripts/demo.sh: the main job, both seed incidents replayed end to end)"
# It runs after the suite, alone, because its simulators listen on fixed ports (18080-18085).
out=$(scripts/demo.sh 2>&1); rc=$?
echo "$out" | tail -5
if [ $rc = 0 ] && [ "$(echo "$out" | grep -cE '^[0-9]+ of [0-9]+ expectation\(s\) hold')" = 2 ]; then
  tally demo 0 1 0
else
  echo "$out" | tail -40; tally demo 1 0 1
fi

stage "MCP conformance suite (official, npm @modelcontextprotocol/conformance)"
out=$(scripts/conformance.sh --dw "$root/build/dw" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^conformance: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally conformance $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

stage "TypeScript SDK client against each agent over stdio"
out=$(node tests/node/sdk_agents.mjs "$root/start-agent.sh" "$root/examples/loyalty-flink" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^sdk: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally sdk $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

stage "the warehouse simulators against Google's own clients and the Snowflake SQL API's published shapes"
out=$(node tests/node/warehouse_clients.mjs "$root/build" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^warehouse-clients: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally warehouse-clients $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

stage "Claude Code: claude mcp add + claude mcp list"
out=$(tests/node/claude_mcp_list.sh "$root/start-agent.sh" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^claude: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally claude $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

stage "the desk in headless Chromium (playwright-core + axe-core)"
out=$(node tests/browser/desk_browser.mjs "$root/build" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^browser: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally browser $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

if [ "${DW_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "instrumented build (clang, ASan + UBSan: the tests and the fuzz targets)"
  if scripts/instrumented-build.sh build-asan; then
    stage "unit and integration tests, scenario replays under ASan + UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_ctest ctest-asan build-asan
    stage "fuzz targets, ${DW_FUZZ_SECONDS:-20} s each under ASan + UBSan (scripts/fuzz-smoke.sh)"
    # One target per core at a time: each still runs its DW_FUZZ_SECONDS on a core of its own.
    out=$(DW_FUZZ_PARALLEL=${DW_FUZZ_PARALLEL:-$(nproc)} scripts/fuzz-smoke.sh 2>&1); rc=$?
    echo "$out"
    tally fuzz $rc "$(echo "$out" | grep -cE ' ok$')" "$(echo "$out" | grep -cE ' FAILED ')"
    # What failed, repeated at the end: CI keeps only the tail of the log.
    [ $rc != 0 ] && failure_details+=("$(echo "$out" | grep -E 'FAILED|ERROR: |SUMMARY: |runtime error|base64:|^[A-Za-z0-9+/=]{8,}$' | cut -c1-12000)")
  else
    tally instrumented-build 1 0 1
  fi
fi

finish
