#!/usr/bin/env bash
# Wall time of `dw replay` on each seed scenario (target: under 10 s each), RUNS times each, with
# what the replay measured: when the incident opened and the cause it ranked first. The replay's
# own wall_ms (from reading the scenario to the last verdict, simulators started and stopped
# included) and the process's elapsed time are both reported.
# usage: bench/replay_seeds.sh [DW_BINARY=build/dw] [RUNS=5] [SCENARIO...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dw=${1:-$root/build/dw}
runs=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$root/examples/scenarios/flink-restore-zeroed-balances"
                                         "$root/examples/scenarios/kestra-stale-tariff-http-200")
[ -x "$dw" ] || { echo "replay_seeds: no dw at $dw (ninja -C build dw dw-sim)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-34s %5s %12s %12s %8s  %s\n' scenario run wall_ms elapsed_ms passed "incident opened / cause ranked first"
for s in "${scenarios[@]}"; do
  name=$(basename "$s")
  for run in $(seq "$runs"); do
    start=$(date +%s%N)
    rc=0
    "$dw" replay "$s" --format json >"$tmp/out.json" 2>"$tmp/err" || rc=$?
    end=$(date +%s%N)
    [ "$rc" -le 1 ] || { echo "replay_seeds: $name: exit $rc: $(cat "$tmp/err")" >&2; exit 1; }
    python3 - "$tmp/out.json" "$name" "$run" $(( (end - start) / 1000000 )) <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
opened = [r for r in j["rows"] if r["by"] == "data_workers" and r["what"].startswith("Incident ")]
cause = [r for r in j["rows"] if r["by"] == "data_workers" and r["what"].startswith("Cause ranked first")]
what = (opened[0]["at"][11:16] + " opened" if opened else "no incident") + \
       (" / " + cause[0]["what"].split(": ", 1)[1].split(" (")[0] if cause else "")
print("%-34s %5s %12d %12s %8s  %s" % (sys.argv[2], sys.argv[3], j["wall_ms"], sys.argv[4], j["passed"], what))
PY
  done
done
