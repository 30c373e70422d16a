#!/usr/bin/env bash
# Replays COUNT variants of every scenario family (docs/scenarios.md, Families) and prints the
# figures the issue asks for: right cause first %, in the top 3 %, causes not among the
# candidates, incidents on benign variants, and the detection delay per kind against the seed
# pages' desk (63 and 145 minutes after the first bad write).
#   bench/scenario_families.sh [BUILD_DIR] [COUNT_PER_FAMILY] [SEED]
# Default: build/, 34 per family (9 families: 306 variants), seed 1000.
set -euo pipefail
build=${1:-build}
count=${2:-34}
seed=${3:-1000}
dw="$build/dw"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
families=$("$dw" replay --family '?' 2>&1 | sed -n 's/.*the families are: \(.*\))$/\1/p' | tr -d ',' || true)
start=$(date +%s)
for f in $families; do
  "$dw" replay --family "$f" --seed "$seed" --count "$count" --format json >"$out/$f.json" 2>/dev/null || true
done
python3 - "$out" "$(( $(date +%s) - start ))" <<'PY'
import json, os, sys, statistics
out, secs = sys.argv[1], sys.argv[2]
inc = first = top3 = not_among = missed = benign = on_benign = failed = 0
rows = []
for name in sorted(os.listdir(out)):
    j = json.load(open(os.path.join(out, name)))
    for fam, t in j["families"].items():
        inc += t["incident"]; first += t["first"]; top3 += t["top3"]; not_among += t["not_among_candidates"]
        missed += t["missed"]; benign += t["benign"]; on_benign += t["incidents_on_benign"]; failed += t["failed"]
        delays = [v["delay_minutes"] for v in j["variants"] if "delay_minutes" in v]
        if t["benign"]:
            rows.append(f"| {fam} | benign | {t['benign']} | {t['benign'] - t['incidents_on_benign']} quiet | | |")
        else:
            med = f"{statistics.median(delays):.0f}" if delays else "-"
            mx = f"{max(delays):.0f}" if delays else "-"
            rows.append(f"| {fam} | incident | {t['incident']} | {t['first']} first, {t['top3']} top 3, {t['not_among_candidates']} not among, {t['missed']} missed | {med} | {mx} |")
total = inc + benign
print(f"variants replayed: {total} in {secs} s ({failed} could not run)")
print(f"incident variants: {inc}; right cause first {100*first/max(inc,1):.1f}%, in the top 3 {100*top3/max(inc,1):.1f}%, "
      f"cause not among the candidates {not_among}, missed {missed}")
print(f"benign variants: {benign}; incidents on them: {on_benign}")
print("| family | kind | variants | verdicts | delay median (min) | delay max (min) |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
print("(the seed pages' desk: 63 and 145 minutes after the first bad write)")
PY
