// Incident: the hourly loader's trigger is disabled; the table stops being loaded (freshness).
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraLoadStops(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-load-stops", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  TimePoint disabled = Minutes(d.start, rng.Int(10, 6 * 60 - 200));
  d.world_note = "A Kestra flow loads " + w.table + " every hour; its schedule trigger is disabled and the loads stop.";
  d.setup_sql = CreateTableSql(w);
  std::optional<TimePoint> first_missed;
  AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool stopped = run > disabled;
    if (stopped && !first_missed) first_missed = run;
    return LoadStyle{!stopped, 1, 1, false};
  });
  if (!first_missed) return InvalidArgument("kestra-load-stops, seed " + std::to_string(seed) + ": the story breaks a constraint: no run is missed before the clock ends");
  std::string select = "INSERT INTO " + w.table + " SELECT * FROM staging." + w.table;
  std::string cron = std::to_string(l.minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", l.ns}, {"id", l.flow}, {"revision", 1}, {"source", LoaderSource(l.ns, l.flow, select, cron)},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false},
                                                          {"changes", Json::array({{{"at", Ts(disabled)}, {"disabled", true}}})}}})}});
  d.events.push_back({disabled, "Kestra", "The schedule trigger of " + l.ns + "." + l.flow + " is disabled", "", "", ""});
  AddLoadedTableChecks(d, w, "75m");
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"trigger_toggled"}, l.asset};
  d.story.first_bad_write = *first_missed;  // the first load that did not happen
  d.story.shape += ", " + std::to_string(l.rows) + " rows/h";
  AddDistractors(rng, d, w, *first_missed);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
