#!/usr/bin/env bash
# dw watch's jobs round after round under injected faults (docs/RELIABILITY.md): a Kestra answering
# a 5xx storm or resetting mid-body, a platform whose name does not resolve, a PostgreSQL warehouse
# that refuses connections and one whose query outlasts its query_timeout, DW_WATCH_FAULTS (default
# 1,000) faults in one process, counting /proc/self/fd and /proc/self/task before and after. The
# test command runs the same test with 40 faults.
#   bench/watch_faults.sh [BUILD_DIR]      (default build; needs dw_tests built)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
export DW_WATCH_FAULTS=${DW_WATCH_FAULTS:-1000}
"$root/scripts/with-postgres.sh" "$build/dw_tests" --gtest_filter='WatchFaultsTest.ThousandsOfFaultsLeaveNoDescriptorOrThreadBehind' \
  | grep -E '^\[ faults \]|^\[  (PASSED|FAILED) |Failure|leaked'
