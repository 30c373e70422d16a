#!/usr/bin/env bash
# The soak of `dw serve` (docs/RELIABILITY.md): 10 minutes (DW_SOAK_SECONDS) of 64 MCP sessions
# (DW_SOAK_SESSIONS) and an OpenLineage stream at once, on a scratch copy of the loyalty example
# with OpenLineage intake on. Fails on any error answer, RSS growth over 5%, leaked descriptors or
# a p99 that drifts. bench/soak.py says exactly what it does.
#   bench/soak.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/examples/loyalty-flink" "$tmp/ws"
sqlite3 "$tmp/ws/warehouse.db" < "$tmp/ws/warehouse.sql"
python3 "$root/bench/soak.py" --dw "$build/dw" --workspace "$tmp/ws" \
  --seconds "${DW_SOAK_SECONDS:-600}" --sessions "${DW_SOAK_SESSIONS:-64}"
