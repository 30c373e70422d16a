#!/usr/bin/env bash
# The full crash-consistency run (docs/RELIABILITY.md): every writer of tests/crash/ (metric points,
# receipts, dw check, dw serve intake, dw collect, dw watch --once opening incidents, dw approve,
# dw incidents resolve; and tests/crash/crash_decision_writers_test.cc: dw incidents verify,
# dw incidents propose, dw watch --once drafting proposals, the approval-expiry job, dw keys issue)
# killed with
# SIGKILL 200 times (DW_CRASH_KILLS), on SQLite and on a throwaway PostgreSQL server. The test
# command runs the same tests with a few kills each. DW_CRASH_SEED replays a run's kill moments.
#   bench/crash.sh [BUILD_DIR]      (default build; needs dw_tests and dw built)
# Figures per writer in docs/RELIABILITY.md. The decision writers' 200-kill run (2026-12-02, shared
# host, load 6-12): all 2,000 kills survived; wall time per writer, SQLite / PostgreSQL: verify
# 308 / 539 s, propose 58 / 97 s, watch drafting 26 / 82 s, approval expiry 31 / 97 s, keys issue
# 35 / 53 s (about 22 minutes in all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
export DW_CRASH_KILLS=${DW_CRASH_KILLS:-200}
export DW_CRASH_SEED=${DW_CRASH_SEED:-20261201}
echo "crash: $DW_CRASH_KILLS kills per writer and backend, seed $DW_CRASH_SEED" >&2
start=$(date +%s)
"$root/scripts/with-postgres.sh" "$build/dw_tests" --gtest_filter='Backends/CrashTest.*:Backends/CrashWritersTest.*:Backends/CrashDecisionWritersTest.*' | grep -E '^\[ crash \]|^\[  (PASSED|FAILED) |FAILED|Failure' 
echo "crash: took $(( $(date +%s) - start )) s" >&2
