#!/usr/bin/env bash
# The main job on the bundled example workspace: installs what is missing, builds, prepares a
# scratch copy of examples/loyalty-flink (its SQLite warehouse created from warehouse.sql), then
# starts the example's platform simulators (dw-sim), validates the workspace, describes what it
# configures, runs its quality checks as of the incident's time, starts each of the five agents
# over MCP stdio to list its tools and call describe_workspace, and makes one `dw collect` pass of
# the change timeline. Then it replays the EV example's night: the checks find the 1,946 sessions
# priced at the stale tariff, reads its flows through the (simulated) Kestra API and sizes the blast
# radius of the stale KV entry: the customer-facing 07:30 fleet statements act next.
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
prepare() {  # prepare EXAMPLE: prints the scratch folder
  local dir="$root/build/demo/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -R "$root/examples/$1/." "$dir/"
  if [ -f "$dir/warehouse.sql" ]; then
    sqlite3 "$dir/warehouse.db" < "$dir/warehouse.sql" >/dev/null
  fi
  echo "$dir"
}

# The instant each example's story is told at: its checks are evaluated as of then.
replay_at() {
  case "$1" in
    loyalty-flink) echo 2026-11-24T14:00:00Z ;;  # just before the 14:02 restore
    ev-kestra) echo 2026-11-25T02:30:00Z ;;      # when the volume check reads the audit
    *) date -u +%Y-%m-%dT%H:%M:%SZ ;;
  esac
}

# Runs dw check; exit 1 (a check failed) is a finding, not a demo failure.
check() {
  local rc=0
  "$dw" --workspace "$1" --now "$(replay_at "$2")" check || rc=$?
  if [ "$rc" -eq 1 ]; then echo "(exit 1: a check failed)"; elif [ "$rc" -ne 0 ]; then exit "$rc"; fi
}

# Starts `dw-sim PLATFORM` on PORT with SCRIPT and waits until it accepts connections (at most
# 10 s); a simulator that exits or never listens stops the demo with its log.
start_sim() {  # start_sim PLATFORM PORT SCRIPT
  local log="$root/build/demo/dw-sim-$1-$2.log"
  if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
    echo "demo: port $2 is already taken; stop what listens there (dw-sim $1 needs it)" >&2; exit 2
  fi
  "$root/build/dw-sim" "$1" --listen "127.0.0.1:$2" --script "$3" >"$log" 2>&1 &
  local pid=$!
  sim_pids+=("$pid")
  for _ in $(seq 1 100); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "demo: dw-sim $1 on port $2 exited:" >&2; cat "$log" >&2; exit 2
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "demo: dw-sim $1 is not listening on port $2 after 10 s" >&2; cat "$log" >&2; exit 2
}

work=$(prepare "$example")

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
  start_sim "$platform" "$port" "$script"
done

echo "== dw validate"
"$dw" --workspace "$work" validate
echo
echo "== dw describe"
"$dw" --workspace "$work" describe
echo
echo "== dw check --now $(replay_at "$example")"
check "$work" "$example"
echo
echo "== dw agents --check (each agent started over MCP stdio)"
"$dw" --workspace "$work" agents --check
echo
echo "== dw collect (one pass of the change timeline over the simulated platforms)"
# Every platform of the example has a simulator, so any failure here is a failure of the demo.
"$dw" --workspace "$work" collect
if [ "$example" = loyalty-flink ]; then
  echo
  ev=$(prepare ev-kestra)
  echo "== the EV example's night: dw check --now $(replay_at ev-kestra)"
  check "$ev" ev-kestra
  echo
  echo "== its flows read through the (simulated) Kestra API: dw ingest kestra, then the blast radius of the KV entry"
  start_sim kestra 18080 "$ev/sim/kestra.json"
  "$dw" --workspace "$ev" ingest kestra
  "$dw" --workspace "$ev" --now "$(replay_at ev-kestra)" blast-radius kv://kestra/pricing/tariffs_current
fi

# Both seed incidents replayed end to end (docs/scenarios.md): the simulated clock drives the real
# watch jobs and the simulators; the owner's approvals are signed and decided as `dw approve` does,
# her fix is verified and the resolution leaves a receipt. Each replay prints its timeline, then the
# seed page's table with our times beside theirs, then checks its expectations (incident opened,
# cause ranked first, blast radius, verified, receipt, and the messages its loopback Slack,
# Opsgenie, Teams and SMTP receivers got) and exits non-zero if one fails.
for seed in flink-restore-zeroed-balances kestra-stale-tariff-http-200; do
  echo
  echo "== dw replay examples/scenarios/$seed"
  "$dw" replay "$root/examples/scenarios/$seed"
done
