#!/usr/bin/env bash
# The main job on the bundled example workspace: installs what is missing, builds, prepares a
# scratch copy of examples/loyalty-flink (its SQLite warehouse created from warehouse.sql), then
# validates the workspace, describes what it configures, and starts each of the five agents over
# MCP stdio to list its tools and call describe_workspace.
#   scripts/demo.sh [EXAMPLE]   default EXAMPLE: loyalty-flink
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-loyalty-flink}
src="$root/examples/$example"
[ -f "$src/dataworkers.yaml" ] || { echo "demo: no example workspace at $src" >&2; exit 2; }

"$root/scripts/setup.sh" --no-node
DW_BUILD_TARGETS=dw "$root/scripts/build.sh" "$root/build"
dw="$root/build/dw"

# A scratch copy keeps the source tree clean and makes every run start from the same state.
work="$root/build/demo/$example"
rm -rf "$work"
mkdir -p "$work"
cp -R "$src/." "$work/"
if [ -f "$work/warehouse.sql" ]; then
  sqlite3 "$work/warehouse.db" < "$work/warehouse.sql"
fi

echo "== dw validate"
"$dw" --workspace "$work" validate
echo
echo "== dw describe"
"$dw" --workspace "$work" describe
echo
echo "== dw agents --check (each agent started over MCP stdio)"
"$dw" --workspace "$work" agents --check
