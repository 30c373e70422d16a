// Incident: the customers loader's revision 2 reloads only active customers; the orders already
// loaded still name the others, so their customer_id points at no customer (orphaned foreign
// keys). The damage shows on orders (a team's referential check there), while the change is on
// the loader of customers, which orders does not read.
#include <cmath>

#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraOrphanedKeys(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-orphaned-keys", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  // The orders' loader, as every hour (its customer ids are 1 + (i * 7919) % 5000).
  HourlyLoader orders{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 400)};
  d.setup_sql = CreateTableSql(w);
  AddHourlyLoads(rng, d, w, orders, [](TimePoint) { return LoadStyle{}; });
  const std::string orders_select = "INSERT INTO " + w.table + " SELECT * FROM staging." + w.table;
  d.kestra["flows"].push_back({{"namespace", orders.ns}, {"id", orders.flow}, {"revision", 1},
                               {"source", LoaderSource(orders.ns, orders.flow, orders_select, std::to_string(orders.minute) + " * * * *")},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  // The customers table, reloaded whole every hour by its own flow; 5,000 customers, a share of
  // them inactive.
  const std::string customers = "customers", customers_asset = "table://main/customers";
  const std::string ns = "crm", flow = "load_customers", flow_asset = "kestra://kestra/crm.load_customers";
  const int minute = rng.Int(0, 59);
  const int inactive_pct = rng.Int(10, 40);
  d.setup_sql += "DROP TABLE IF EXISTS customers;\nCREATE TABLE customers (id INTEGER PRIMARY KEY, status TEXT NOT NULL, loaded_at TEXT NOT NULL);\n"
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)\nINSERT INTO customers SELECT i, "
                 "CASE WHEN (i * 31) % 100 < " + std::to_string(inactive_pct) + " THEN 'inactive' ELSE 'active' END, '" +
                 SqlTs(Minutes(d.start, -30)) + "Z' FROM n;\n";
  d.asset_yaml.push_back("  - id: " + customers_asset + "\n    domain: crm\n");
  d.asset_yaml.push_back("  - id: " + flow_asset + "\n    domain: crm\n    writes: [" + customers_asset + "]\n    schedule: \"" +
                         std::to_string(minute) + " * * * *\"\n");
  d.domains["crm"] = rng.Pick(std::vector<std::string>{"nora@example.com", "sam@example.com", "kai@example.com"});
  const std::string before = "DELETE FROM customers; INSERT INTO customers SELECT id, status, now() FROM staging.customers";
  const std::string after = before + " WHERE status = 'active'";
  const TimePoint saved = Minutes(d.start, rng.Int(20, 6 * 60 - 150));
  const std::string cron = std::to_string(minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", ns}, {"id", flow}, {"revision", 1}, {"source", LoaderSource(ns, flow, before, cron)},
                               {"revisions", Json::array({{{"revision", 2}, {"at", Ts(saved)}, {"source", LoaderSource(ns, flow, after, cron)}}})},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  d.events.push_back({saved, "Kestra", "Revision 2 of crm.load_customers is saved: it reloads only active customers", "", "", ""});
  std::optional<TimePoint> first_bad;
  const int64_t start_min = ToUnixMillis(d.start) / 60000;
  for (int64_t m = (start_min / 60 - 3) * 60 + minute; m * 60000 <= ToUnixMillis(d.end) - 60000; m += 60) {
    const TimePoint run = FromUnixMillis(m * 60000);
    const bool filtered = run > saved;
    Json ex = {{"id", "cu" + std::to_string(m)}, {"namespace", ns}, {"flowId", flow}, {"flowRevision", filtered ? 2 : 1},
               {"state", "SUCCESS"}, {"start", Ts(run)}, {"end", Ts(run + std::chrono::seconds(8))}, {"trigger", ScheduleTrigger(run)},
               {"taskRuns", Json::array({{{"taskId", "load"}, {"outputs", {{"rows", filtered ? 5000 * (100 - inactive_pct) / 100 : 5000}}}}})}};
    d.kestra["executions"].push_back(ex);
    if (run < d.start) continue;
    std::string sql = "DELETE FROM customers;\nWITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)\n"
                      "INSERT INTO customers SELECT i, CASE WHEN (i * 31) % 100 < " + std::to_string(inactive_pct) +
                      " THEN 'inactive' ELSE 'active' END, '" + SqlTs(run) + "Z' FROM n" +
                      (filtered ? " WHERE (i * 31) % 100 >= " + std::to_string(inactive_pct) : std::string()) + ";\n";
    if (filtered && !first_bad) first_bad = run + std::chrono::seconds(8);
    d.events.push_back({run + std::chrono::seconds(8), "Kestra + warehouse",
                        std::string("crm.load_customers reloads ") + (filtered ? "the active customers only" : "every customer"), sql, "", ""});
  }
  if (!first_bad) return InvalidArgument("kestra-orphaned-keys, seed " + std::to_string(seed) + ": the story breaks a constraint: no reload after the revision");
  AddLoadedTableChecks(d, w, "90m");
  // The referential check a team writes on orders: every customer_id names a customer.
  d.check_yaml.push_back("  - table: main." + w.table + "\n    custom:\n      - {name: orphaned_customer_ids, sql: \"SELECT count(*) FROM " + w.table +
                         " o WHERE o.customer_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)\", must_be: 0}\n");
  d.world_note = "Orders name their customer; crm.load_customers reloads the customers every hour, and its revision 2 keeps only the active ones (" +
                 std::to_string(100 - inactive_pct) + "%), so orders of the others point at no customer.";
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"flow_revision", "execution"}, flow_asset};
  d.story.first_bad_write = *first_bad;
  d.story.shape += ", " + std::to_string(inactive_pct) + "% inactive customers";
  AddDistractors(rng, d, w, *first_bad);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
