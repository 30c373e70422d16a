// Incident: a revision of the hourly loader reads amounts in cents where the table holds euros.
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraUnitChange(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-unit-change", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  TimePoint saved = Minutes(d.start, rng.Int(10, 6 * 60 - 150));
  d.world_note = "A Kestra flow loads " + w.table + " every hour; revision 2 reads amount_cents where it read amount_eur, "
                 "so every amount after it is a hundred times too large.";
  d.setup_sql = CreateTableSql(w);
  auto runs = AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool after = run > saved;
    return LoadStyle{true, after ? 2 : 1, after ? 100.0 : 1.0, false};
  });
  std::string select = "INSERT INTO " + w.table + " (id, customer_id, amount) SELECT id, customer_id, amount_eur FROM staging." + w.table;
  std::string revised = select;
  revised.replace(revised.find("amount_eur"), 10, "amount_cents");
  std::string cron = std::to_string(l.minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", l.ns}, {"id", l.flow}, {"revision", 1}, {"source", LoaderSource(l.ns, l.flow, select, cron)},
                               {"revisions", Json::array({{{"revision", 2}, {"at", Ts(saved)}, {"source", LoaderSource(l.ns, l.flow, revised, cron)}}})},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  d.events.push_back({saved, "Kestra", "Revision 2 of " + l.ns + "." + l.flow + " is saved: amount now read from amount_cents", "", "", ""});
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
