#!/usr/bin/env bash
# Replay determinism (docs/RELIABILITY.md): `dw replay SCENARIO --format json` RUNS times in a row
# (default 100) per scenario (default the two seed incidents), each run compared with the first:
# the timeline rows (the world's and the product's), the seed-page comparison, every verdict, the
# errors and the watch jobs' log lines, and every receipt the run wrote (`dw receipts export`),
# must be identical. Each run keeps its scratch folder at the same path, so the workspace's paths
# recorded in proposals and receipts are the same. What is ignored: `wall_ms` (the wall-clock time
# the replay took), and the loopback port of each simulator (a free port per run), which receipts
# quote in their evidence (the JobManager log's URL); since a receipt's hash covers its content,
# the hash quoted in the timeline row "Receipt N written ... (hash ...)" and the receipts' hash
# and prev_hash are masked too, their content compared with the port masked instead. Times are
# all on the simulated clock, store stamps included.
# Exit 1 at the first run that differs, with the difference; 0 when every run matched.
#   bench/replay_repeat.sh [BUILD_DIR=build] [RUNS=100] [SCENARIO...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-100}
shift $(( $# > 2 ? 2 : $# ))
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$root/examples/scenarios/flink-restore-zeroed-balances"
                                         "$root/examples/scenarios/kestra-stale-tariff-http-200")
dw=$build/dw
[ -x "$dw" ] && [ -x "$build/dw-sim" ] || { echo "replay_repeat: build dw and dw-sim first (ninja -C $build dw dw-sim)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The comparable part of a run: the report without wall_ms, then the receipts, with the ports and
# hashes masked as said above; keys sorted.
normalize() {
  python3 -c '
import json, re, sys
report = json.load(open(sys.argv[1]))
receipts = json.load(open(sys.argv[2]))
report.pop("wall_ms", None)
def mask(x):
    if isinstance(x, dict):
        return {k: ("<hash>" if k in ("hash", "prev_hash") and x[k] else mask(v)) for k, v in x.items()}
    if isinstance(x, list):
        return [mask(v) for v in x]
    if isinstance(x, str):
        x = re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:<port>", x)
        return re.sub(r"\(hash [0-9a-f]+\.\.\.\)", "(hash <masked>)", x)
    return x
print(json.dumps({"report": mask(report), "receipts": mask(receipts)}, indent=1, sort_keys=True))' "$1" "$2"
}

status=0
for s in "${scenarios[@]}"; do
  name=$(basename "$s")
  start=$(date +%s)
  rows=0 verdicts=0
  for run in $(seq "$runs"); do
    rc=0
    rm -rf "$tmp/scratch"
    "$dw" replay "$s" --format json --keep-scratch "$tmp/scratch" >"$tmp/out.json" 2>"$tmp/err" || rc=$?
    [ "$rc" -le 1 ] || { echo "replay_repeat: $name run $run: exit $rc: $(tail -5 "$tmp/err")" >&2; exit 1; }
    "$dw" --workspace "$tmp/scratch/workspace" receipts export --format json >"$tmp/receipts.json"
    normalize "$tmp/out.json" "$tmp/receipts.json" >"$tmp/run.json"
    if [ "$run" -eq 1 ]; then
      cp "$tmp/run.json" "$tmp/first.json"
      first_rc=$rc
      read -r rows verdicts receipts < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(len(j["rows"]), len(j["verdicts"]), len(json.load(open(sys.argv[2]))))' "$tmp/out.json" "$tmp/receipts.json")
    elif ! cmp -s "$tmp/first.json" "$tmp/run.json" || [ "$rc" -ne "$first_rc" ]; then
      echo "replay_repeat: $name: run $run differs from run 1 (exit $rc, first $first_rc):" >&2
      diff "$tmp/first.json" "$tmp/run.json" | head -40 >&2 || true
      status=1
      break
    fi
  done
  [ "$status" -eq 0 ] || break
  echo "$name: $runs runs identical (exit $first_rc; $rows timeline rows, $verdicts verdicts, $receipts receipt(s); wall_ms and ports ignored), $(( $(date +%s) - start )) s"
done
exit $status
