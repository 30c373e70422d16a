// Incident: a revision of the hourly loader maps a column the upstream renamed; from its next run
// on the column lands NULL (a schema change that nulls a column).
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraRevisionNullsColumn(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-revision-nulls-column", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  TimePoint saved = Minutes(d.start, rng.Int(10, 6 * 60 - 150));
  d.world_note = "A Kestra flow loads " + w.table + " every hour; revision 2 maps customer_id from a field the upstream renamed, "
                 "so every run after it lands customer_id NULL.";
  d.setup_sql = CreateTableSql(w);
  auto runs = AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool after = run > saved;
    return LoadStyle{true, after ? 2 : 1, 1, after};
  });
  std::string select = "INSERT INTO " + w.table + " (id, customer_id, amount) SELECT id, {{ row.customer_id }}, amount FROM staging." + w.table;
  std::string cron = std::to_string(l.minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", l.ns}, {"id", l.flow}, {"revision", 1}, {"source", LoaderSource(l.ns, l.flow, select, cron)},
                               {"revisions", Json::array({{{"revision", 2}, {"at", Ts(saved)},
                                                           {"source", LoaderSource(l.ns, l.flow, select.replace(select.find("row.customer_id"), 15, "row.customerId"), cron)}}})},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  d.events.push_back({saved, "Kestra", "Revision 2 of " + l.ns + "." + l.flow + " is saved: customer_id now read from row.customerId", "", "", ""});
  AddLoadedTableChecks(d, w, "90m");
  TimePoint first_bad{};
  for (TimePoint r : runs)
    if (r > saved) { first_bad = r + std::chrono::seconds(5); break; }
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"flow_revision", "execution"}, l.asset};
  d.story.first_bad_write = first_bad;
  d.story.shape += ", " + std::to_string(l.rows) + " rows/h";
  AddDistractors(rng, d, w, first_bad);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
