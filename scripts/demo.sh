#!/usr/bin/env bash
# The main job on the bundled example workspace: installs what is missing, builds, prepares a
# scratch copy of examples/loyalty-flink (its SQLite warehouse created from warehouse.sql), then
# starts the example's platform simulators (dw-sim), validates the workspace, describes what it
# configures, starts each of the five agents over MCP stdio to list its tools and call
# describe_workspace, and makes one `dw collect` pass of the change timeline.
#   scripts/demo.sh [EXAMPLE]   default EXAMPLE: loyalty-flink
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-loyalty-flink}
src="$root/examples/$example"
[ -f "$src/dataworkers.yaml" ] || { echo "demo: no example workspace at $src" >&2; exit 2; }

"$root/scripts/setup.sh" --no-node
DW_BUILD_TARGETS="dw dw-sim" "$root/scripts/build.sh" "$root/build"
dw="$root/build/dw"

# A scratch copy keeps the source tree clean and makes every run start from the same state.
work="$root/build/demo/$example"
rm -rf "$work"
mkdir -p "$work"
cp -R "$src/." "$work/"
if [ -f "$work/warehouse.sql" ]; then
  sqlite3 "$work/warehouse.db" < "$work/warehouse.sql"
fi

# The example's platforms are dw-sim simulators on the ports its workspace names, each replaying
# the incident from its script (examples/<example>/sim/<platform>.json); stopped when the demo ends.
sim_pids=()
trap 'for p in "${sim_pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
for script in "$work"/sim/*.json; do
  [ -f "$script" ] || continue
  case "$(basename "$script" .json)" in
    flink) platform=flink; port=18081 ;;
    kestra) platform=kestra; port=18080 ;;
    connect) platform=kafka-connect; port=18083 ;;
    registry) platform=schema-registry; port=18085 ;;
    *) continue ;;
  esac
  "$root/build/dw-sim" "$platform" --listen "127.0.0.1:$port" --script "$script" >/dev/null &
  sim_pids+=($!)
done
sleep 0.5

echo "== dw validate"
"$dw" --workspace "$work" validate
echo
echo "== dw describe"
"$dw" --workspace "$work" describe
echo
echo "== dw agents --check (each agent started over MCP stdio)"
"$dw" --workspace "$work" agents --check
echo
echo "== dw collect (one pass of the change timeline over the simulated platforms)"
"$dw" --workspace "$work" collect || true
