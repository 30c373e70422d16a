#!/usr/bin/env bash
# docs/quickstart.md is a test: its `sh test` blocks run in order (scripts/doc-commands.sh) against
# what stands in for the reader's systems, and the test fails when a block fails or when the page
# no longer reaches what it promises (an open incident on shop.orders whose cause ranked first is
# the Kestra load that retried).
#   - the warehouse: a database of its own on the throwaway PostgreSQL server of
#     scripts/with-postgres.sh (DW_TEST_PG_URL), holding tests/docs/quickstart/warehouse.sql;
#   - Kestra: `dw-sim kestra` on a free loopback port, with basic auth, serving
#     tests/docs/quickstart/kestra.json.in with its times set relative to now;
#   - the dbt project: a folder whose target/manifest.json is what `dbt parse` writes for it.
# The page's environment block (DW_PG_DSN, KESTRA_URL, ...) is set here to those.
# First, scripts/doc-commands.sh itself must fail a page whose command fails.
# usage: tests/docs/quickstart_test.sh BUILD_DIR   (CTest, label postgres; 77 = skipped without
# a PostgreSQL server)
set -uo pipefail
build=$(cd "${1:?usage: quickstart_test.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
fixtures="$root/tests/docs/quickstart"
run_page="$root/scripts/doc-commands.sh"
[ -n "${DW_TEST_PG_URL:-}" ] || { echo "DW_TEST_PG_URL is not set (run under scripts/with-postgres.sh): skipped"; exit 77; }
command -v psql >/dev/null || { echo "psql is not installed: skipped"; exit 77; }
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

work=$(mktemp -d)
db="dw_quickstart_$$"
sim_pid=""
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  psql -q "$DW_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# --- scripts/doc-commands.sh fails what fails -------------------------------------------------
page() { printf '%s\n' "$@" >"$work/page.md"; }
fence='```'
page "# ok" "${fence}sh test" "x=1" "cd /" "$fence" "${fence}sh" "false  # only shown" "$fence" \
     "${fence}sh test exit=3" "(exit 3)" "$fence" "${fence}sh test" "[ \"\$x\" = 1 ] && [ \"\$PWD\" = / ]" "$fence"
(cd "$work" && "$run_page" page.md >/dev/null 2>&1) || fail "doc-commands.sh failed a page whose blocks all end as it says"
page "# a command fails" "${fence}sh test" "true" "false" "true" "$fence" "${fence}sh test" "echo never" "$fence"
out=$(cd "$work" && "$run_page" page.md 2>&1); rc=$?
[ $rc = 1 ] || fail "doc-commands.sh exited $rc for a page whose command fails (want 1)"
echo "$out" | grep -q "page.md:4: a command failed (exit code 1)" || fail "the failing block is not named: $out"
echo "$out" | grep -q "echo never" && fail "a block after the failing one ran"
page "# a failure the page expects, then none" "${fence}sh test exit=1" "true" "$fence"
out=$(cd "$work" && "$run_page" page.md 2>&1); rc=$?
[ $rc = 1 ] || fail "doc-commands.sh exited $rc for a block that succeeded where the page expects exit 1"
echo "$out" | grep -q "page.md:3: the block ended with exit code 0, the page expects 1" || fail "no message: $out"
page "# nothing to run" "${fence}sh" "true" "$fence"
(cd "$work" && "$run_page" page.md >/dev/null 2>&1); rc=$?
[ $rc = 2 ] || fail "doc-commands.sh exited $rc for a page without a test block (want 2)"

# --- the reader's systems -------------------------------------------------------------------
psql -q -v ON_ERROR_STOP=1 "$DW_TEST_PG_URL" -c "CREATE DATABASE $db" >/dev/null || { echo "cannot create $db"; exit 1; }
dsn="${DW_TEST_PG_URL%/*}/$db"
psql -q -v ON_ERROR_STOP=1 "$dsn" -f "$fixtures/warehouse.sql" >/dev/null || { echo "warehouse.sql failed"; exit 1; }
mkdir -p "$work/shop-dbt/target"
sed "s/@DATABASE@/$db/g" "$fixtures/manifest.json.in" >"$work/shop-dbt/target/manifest.json"
script="$work/kestra.json"
cp "$fixtures/kestra.json.in" "$script"
for n in $(grep -o '@AGO_[0-9]*@' "$script" | sort -u | tr -dc '0-9\n'); do
  sed -i "s/@AGO_${n}@/$(date -u -d "-$n min" +%Y-%m-%dT%H:%M:%S.000Z)/g" "$script"
done
"$build/dw-sim" kestra --listen 127.0.0.1:0 --script "$script" >"$work/sim.out" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/sim.out" && break; sleep 0.1; done
kestra_url=$(sed -n 's/.*listening on //p' "$work/sim.out")
[ -n "$kestra_url" ] || { echo "dw-sim kestra did not start: $(cat "$work/sim.out")"; exit 1; }

# --- the page -------------------------------------------------------------------------------
mkdir "$work/reader"
unset DW_WORKSPACE
export DW_PG_DSN="$dsn" KESTRA_URL="$kestra_url" KESTRA_USER=dw@example.com \
  KESTRA_PASSWORD=kestra-quickstart-1 DBT_PROJECT="$work/shop-dbt"
(cd "$work/reader" && PATH="$build:$PATH" "$run_page" "$root/docs/quickstart.md") || fail "a command of docs/quickstart.md failed (above)"

# --- what the page promises -------------------------------------------------------------------
ws="$work/reader/shop-dw"
if [ $failures = 0 ]; then
  list=$("$build/dw" --workspace "$ws" incidents list --status open --format json 2>&1)
  id=$(echo "$list" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
items = doc if isinstance(doc, list) else doc.get("incidents", [])
ids = [i["id"] for i in items if "table://pg/shop.orders" in json.dumps(i)]
print(ids[0] if ids else "")' 2>/dev/null)
  [ -n "$id" ] || fail "no open incident on table://pg/shop.orders: $list"
  if [ -n "$id" ]; then
    diag=$("$build/dw" --workspace "$ws" incidents diagnose "$id" 2>&1)
    echo "$diag" | head -1 | grep -q "kestra://kestra/shop.load_orders.* ranks first" ||
      fail "the retried Kestra load is not the cause ranked first: $diag"
    echo "$diag" | grep -q "retrying from page 1" || fail "the execution's log line is not in the evidence: $diag"
  fi
  lineage=$("$build/dw" --workspace "$ws" lineage table://pg/shop.orders --direction down 2>&1)
  echo "$lineage" | grep -q "dbt://shop/fct_daily_revenue" || fail "the dbt model is not downstream: $lineage"
fi
[ $failures = 0 ] && echo "quickstart: every command of docs/quickstart.md ran and the incident is there"
[ $failures = 0 ]
