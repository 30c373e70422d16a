#!/usr/bin/env bash
# The long fuzz run: every target of tests/fuzz/ for an hour each (DW_FUZZ_SECONDS to change it),
# keeping its corpus in build-asan/fuzz-corpus/ between runs. Same output and failure rules as
# scripts/fuzz-smoke.sh, which it runs; figures go to docs/RELIABILITY.md. Every target for an hour
# is 17 CPU-hours; docs/RELIABILITY.md's hour-long figures come from rounds of targets side by
# side (flink_manifests, after its fix, ran its hour alone, with the fuzzer's own command line):
#   DW_FUZZ_TARGETS="jsonrpc openlineage http_serve" DW_FUZZ_PARALLEL=3 nice -n 19 bench/fuzz.sh
#   DW_FUZZ_TARGETS="platform_responses workspace scenario" DW_FUZZ_PARALLEL=3 nice -n 19 bench/fuzz.sh
#   DW_FUZZ_TARGETS="dbt_manifest kestra_flow schema cron_duration http_request notify_receivers series_csv sql_table_refs" \
#     DW_FUZZ_PARALLEL=8 nice -n 19 bench/fuzz.sh
#   DW_FUZZ_TARGETS="approval_link desk_requests" DW_FUZZ_PARALLEL=2 nice -n 19 bench/fuzz.sh
# Do not edit scripts/fuzz-smoke.sh while a run goes on: bash reads it as it runs (an edit once
# broke the report at the end of a round; the result files in build-asan/fuzz-artifacts/ survived).
set -euo pipefail
export DW_FUZZ_SECONDS=${DW_FUZZ_SECONDS:-3600}
# A new seed each run (the smoke run's fixed seed keeps CI repeatable; an hour should search wider).
export DW_FUZZ_SEED=${DW_FUZZ_SEED:-0}
exec "$(cd "$(dirname "$0")/.." && pwd)/scripts/fuzz-smoke.sh" "$@"
