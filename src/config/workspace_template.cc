// The dataworkers.yaml that `dw init` writes: valid as it stands, with every other section shown
// commented out so a new user can learn the file by uncommenting it.
#include "config/workspace.h"

namespace dw::config {

std::string WorkspaceTemplate(const std::string& name) {
  return R"(# Data Workers workspace. Reference: docs/workspace.md
# Every key is checked: a misspelt or unknown key is an error, reported with its line.
# Strings may use ${ENV_VAR}, ${ENV_VAR:-default}; write $$ for a literal $.
version: 1
name: )" + name + R"(
timezone: UTC                       # IANA zone for cron schedules, e.g. Europe/Berlin
# state: .dw/state.db               # default; or postgresql://dw@127.0.0.1:5432/dw

warehouses:
  main: {type: sqlite, path: warehouse.db}
  # pg: {type: postgres, dsn: "${DW_PG_DSN}"}

# platforms:
#   flink:    {type: flink, url: "http://127.0.0.1:8081", manifests: deploy/flink}
#   connect:  {type: kafka-connect, url: "http://127.0.0.1:8083"}
#   registry: {type: schema-registry, url: "http://127.0.0.1:8085"}
#   kestra:   {type: kestra, url: "http://127.0.0.1:8080", tenant: main,
#              username: "${KESTRA_USER}", password: "${KESTRA_PASSWORD}", timeout: 30s}

domains:
  data:
    autonomy: L1                    # L0 manual, L1 observe, L2 propose, L3 act reversibly, L4 autonomous
    owners: [owner@example.com]
    approvers: [owner@example.com]
    # escalate_to: [lead@example.com]
    # approval_ttl: 2h

# people:                           # the keys approvers decide with: `dw keys issue EMAIL` prints
#   owner@example.com:              # the fingerprint; a key counts once it is declared here
#     keys: ["sha256:0000000000000000000000000000000000000000000000000000000000000000"]

# assets:                           # notes on what reads and writes what, recorded once
#   - id: flink://flink/points-balance
#     domain: data
#     owner: owner@example.com
#     reads: [kafka://prod/points-events]
#     writes: [kafka://prod/member-balances]
#   - id: sync://hightouch/tier-changes-to-braze
#     reads: [dbt://loyalty/fct_member_tier]
#     schedule: "0 22 * * *"        # cron, in the workspace time zone
#     customer_facing: true

# lineage:
#   dbt_manifest: target/manifest.json
#   openlineage: true               # accept events on POST /api/v1/lineage
#   kestra_flows: flows/

# checks:
#   - table: main.orders            # warehouse.table (sqlite) or warehouse.schema.table
#     time_column: updated_at
#     not_null: [order_id, amount]
#     unique: [order_id]            # or [[store_id, day]] for a compound key
#     freshness: {max_age: 30m}
#     volume: {min_rows: 1000, window: 1d}
#     accepted_values: {status: [open, paid, refunded]}
#     range: {amount: {min: 0}}
#     schema: true                  # alert when columns change
#     row_count_change: {max_drop_pct: 50}
#     custom:
#       - {name: negative_amounts, sql: "SELECT count(*) FROM orders WHERE amount < 0", must_be: 0}
#     pii: [email]

# monitors:
#   - name: avg_order_amount
#     warehouse: main
#     sql: "SELECT avg(amount) FROM orders WHERE updated_at >= :window_start"
#     every: 1h
#     seasonality: hour_of_week      # none, auto, hour_of_day, day_of_week, hour_of_week, day_of_month
#     direction: drop                # both, drop, spike
#     asset: table://main/public.orders  # incidents on it keep their points out of training

# metrics:
#   retention: 400d                  # metric points older than this are deleted daily

notify:                              # see docs/workspace.md#notify
  console: {}                        # printed by `dw watch`: what would go out, before Slack or mail
#   link: "https://dw.example.com/incidents/{incident}"
#   slack:     {webhook: "${SLACK_WEBHOOK}"}
#   teams:     {webhook: "${TEAMS_WEBHOOK}"}
#   opsgenie:  {api_key: "${OPSGENIE_KEY}"}
#   pagerduty: {routing_key: "${PAGERDUTY_KEY}"}
#   email:     {smtp: "smtp://smtp.example.com:587", from: dw@example.com}
#   routes:
#     - {channels: [slack, email]}
#     - {channels: [pagerduty], severities: [SEV1]}
)";
}

}  // namespace dw::config
