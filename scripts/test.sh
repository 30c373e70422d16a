#!/usr/bin/env bash
# Sets everything up and runs every test:
#  1. the GoogleTest suite (ctest) against both state-store backends, with a throwaway PostgreSQL
#     server started and stopped around it;
#  1b. the README's first command, scripts/demo.sh (both seed incidents replayed end to end);
#  2. the official MCP conformance suite against `dw serve --conformance-fixtures`;
#  3. the official TypeScript SDK client against each agent through start-agent.sh;
#  4. Claude Code itself: `claude mcp add` for each agent, then `claude mcp list`;
#  5. every libFuzzer target of tests/fuzz/ for DW_FUZZ_SECONDS (20) s, one per core at a time
#     (scripts/fuzz-smoke.sh);
#  6. the desk's pages in headless Chromium (playwright-core, axe-core; tests/browser/);
#  7. the GoogleTest suite again under AddressSanitizer and UndefinedBehaviorSanitizer
#     (skip with DW_SKIP_SANITIZERS=1 for a quick local run).
# Exits non-zero if any stage fails; the last line counts passed and failed tests.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

started=$(date +%s); stage_name=""; stage_start=$started; stage_times=()
# Starts a stage: closes the previous one's time and prints the next one's heading. The times are
# repeated at the end, where CI's log keeps them, so a run near CI's limit shows what grew.
stage() {
  local now; now=$(date +%s)
  [ -n "$stage_name" ] && stage_times+=("$(printf '%6d s  %s' $((now - stage_start)) "$stage_name")")
  stage_name=$1; stage_start=$now
  if [ -n "$1" ]; then echo "== $1 (at $((now - started)) s)" >&2; fi
}

stage "setup (Debian packages, npm tools)"
scripts/setup.sh || { echo "test: setup failed" >&2; exit 2; }
source <(scripts/node-tools.sh --env)

passed=0; failed=0; failed_stages=(); failure_details=()
# Adds a stage's counts; a stage that crashed without counts counts as one failure.
tally() { # name exit_code passed failed
  passed=$((passed + $3)); failed=$((failed + $4))
  if [ "$2" != 0 ]; then failed_stages+=("$1"); [ "$4" = 0 ] && failed=$((failed + 1)); fi
}
run_ctest() { # name build_dir
  local log; log=$(mktemp)
  scripts/with-postgres.sh ctest --test-dir "$2" --output-on-failure -j "$(nproc)" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local total fail
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  fail=$(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -1)
  [ "$rc" != 0 ] && failure_details+=("$1: $(sed -n '/The following tests FAILED/,$p' "$log" | head -40)")
  rm -f "$log"
  tally "$1" "$rc" $(( ${total:-0} - ${fail:-0} )) "${fail:-0}"
}

stage "build"
# The normal (unsanitized) pass is a Release build: the one users get, so no extra build is needed.
scripts/build.sh build -DCMAKE_BUILD_TYPE=Release || { echo "test: build failed" >&2; exit 1; }

stage "unit and integration tests (SQLite and PostgreSQL state stores)"
run_ctest ctest build

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

stage "Claude Code: claude mcp add + claude mcp list"
out=$(tests/node/claude_mcp_list.sh "$root/start-agent.sh" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^claude: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally claude $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

stage "fuzz targets, ${DW_FUZZ_SECONDS:-20} s each under ASan + UBSan (scripts/fuzz-smoke.sh)"
# One target per core at a time: each still runs its DW_FUZZ_SECONDS on a core of its own.
out=$(DW_FUZZ_PARALLEL=${DW_FUZZ_PARALLEL:-$(nproc)} scripts/fuzz-smoke.sh 2>&1); rc=$?
echo "$out"
tally fuzz $rc "$(echo "$out" | grep -cE ' ok$')" "$(echo "$out" | grep -cE ' FAILED ')"
# What failed, repeated at the end: CI keeps only the tail of the log.
[ $rc != 0 ] && failure_details+=("$(echo "$out" | grep -E 'FAILED|ERROR: |SUMMARY: |runtime error|base64:|^[A-Za-z0-9+/=]{8,}$' | cut -c1-12000)")
stage "the desk in headless Chromium (playwright-core + axe-core)"
out=$(node tests/browser/desk_browser.mjs "$root/build" 2>&1); rc=$?
echo "$out"
line=$(echo "$out" | grep -E '^browser: [0-9]+ passed, [0-9]+ failed' | tail -1)
tally browser $rc "$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;t;s/.*/0/')" \
  "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/;t;s/.*/0/')"

if [ "${DW_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "build under ASan + UBSan"
  # -O0: the sanitizers find the same faults, and an optimised instrumented build takes four
  # times as long to compile, which was most of CI's time.
  if scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DDW_SANITIZE=ON -DDW_BUILD_BENCH=OFF; then
    stage "unit and integration tests under ASan + UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_ctest ctest-asan build-asan
  else
    tally sanitizer-build 1 0 1
  fi
fi

stage ""
echo "stage times (total $(( $(date +%s) - started )) s):"
for t in "${stage_times[@]}"; do echo "$t"; done
if [ ${#failed_stages[@]} -gt 0 ]; then
  for d in "${failure_details[@]}"; do echo "$d"; done
  echo "test: FAILED stages: ${failed_stages[*]}"
fi
echo "all: $passed passed, $failed failed"
[ ${#failed_stages[@]} -eq 0 ]
