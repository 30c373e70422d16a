#!/bin/sh
# What a `range` check adds to the aggregate scan (issue 14), on a generated SQLite table of ROWS
# rows: the SELECT of only what the check needs (count(*), min), the old compilation of a
# min-only range (min and max), the count of rows outside as sum(CASE ...) and as
# count(*) FILTER (WHERE ...), which dw compiles. The variants alternate within each round so a
# noisy host slows them alike; the median of ROUNDS rounds is printed, in ms.
#   bench/range_aggregates.sh [ROWS] [ROUNDS]     default 2000000 rows, 9 rounds
set -eu
rows=${1:-2000000}
rounds=${2:-9}
db=${TMPDIR:-/tmp}/dw-range-bench-$rows.db
if [ ! -f "$db" ]; then
  sqlite3 "$db" "CREATE TABLE t(amount REAL, id INTEGER);
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $rows)
    INSERT INTO t SELECT (x % 50000) / 100.0 - 0.03, x FROM c;"
fi
sqlite3 "$db" "SELECT count(*) FROM t;" >/dev/null  # warm the page cache
names="needed old_min_max case_count filter_count"
q_needed="SELECT count(*), min(amount) FROM t"
q_old_min_max="SELECT count(*), min(amount), max(amount) FROM t"
q_case_count="SELECT count(*), min(amount), sum(CASE WHEN (amount < 0) THEN 1 ELSE 0 END) FROM t"
q_filter_count="SELECT count(*), min(amount), count(*) FILTER (WHERE (amount < 0)) FROM t"
out=$(mktemp)
i=0
while [ "$i" -lt "$rounds" ]; do
  for name in $names; do
    eval q=\$q_$name
    s=$(date +%s%N); sqlite3 "$db" "$q" >/dev/null; e=$(date +%s%N)
    echo "$name $(( (e - s) / 1000000 ))" >>"$out"
  done
  i=$((i + 1))
done
for name in $names; do
  grep "^$name " "$out" | awk '{print $2}' | sort -n | awk -v n="$name" '{v[NR]=$1} END {print n": median " v[int((NR+1)/2)] " ms"}'
done
rm -f "$out"
