// Someone backfills the hourly loader's schedule over the last hours; each backfilled run deletes
// its slot's rows and reloads them from the staging table.
//   kestra-backfill-overwrites (incident): the staging table holds only part of them, so good rows
//     are overwritten by fewer;
//   kestra-backfill-same-rows (benign): it holds them all, and the reload writes what was there.
#include <cmath>

#include "replay/families/families_list.h"

namespace dw::replay::families {

namespace {

Result<Story> BackfillStory(const std::string& family, uint64_t seed, bool benign) {
  Rng rng(seed);
  Draft d = Begin(family, seed, benign, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  d.setup_sql = CreateTableSql(w);
  AddHourlyLoads(rng, d, w, l, [](TimePoint) { return LoadStyle{}; });
  const std::string select = "DELETE FROM " + w.table + " WHERE landed_at >= '{{ trigger.date }}'; INSERT INTO " + w.table +
                             " SELECT * FROM staging." + w.table + " WHERE landed_at >= '{{ trigger.date }}'";
  const std::string cron = std::to_string(l.minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", l.ns}, {"id", l.flow}, {"revision", 1}, {"source", LoaderSource(l.ns, l.flow, select, cron)},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  // The backfill: `slots` past hourly slots, started one after another from `at`; each reloads its
  // slot with `kept` of its rows (the staging table was truncated to the last day's tail).
  const int slots = rng.Int(3, 5);
  const double kept = benign ? 1.0 : rng.Real(0.0, 0.4);
  const TimePoint at = Minutes(d.start, rng.Int(60, 6 * 60 - 130));
  const int64_t at_min = ToUnixMillis(at) / 60000;
  const TimePoint last_slot = FromUnixMillis(((at_min - l.minute) / 60 * 60 + l.minute) * 60000);  // the latest run at or before `at`
  const std::string batch = "bf" + std::to_string(rng.Int(100000, 999999));
  const bool labelled = rng.Chance(0.5);
  for (int i = 0; i < slots; ++i) {
    const TimePoint slot = Minutes(last_slot, -60 * (slots - i));
    const TimePoint run = at + std::chrono::seconds(40 * i);
    // Benign: the slot's own rows again (its load wrote l.rows give or take 10%; the staging table
    // holds exactly what it loaded, which the reload writes back).
    const int rows = static_cast<int>(std::lround(l.rows * kept));
    Json ex = {{"id", batch + "x" + std::to_string(i)}, {"namespace", l.ns}, {"flowId", l.flow}, {"flowRevision", 1},
               {"state", "SUCCESS"}, {"start", Ts(run)}, {"end", Ts(run + std::chrono::seconds(6))}, {"trigger", ScheduleTrigger(slot)},
               {"taskRuns", Json::array({{{"taskId", "load"}, {"outputs", {{"rows", rows}}}}})},
               {"logs", Json::array({{{"at", Ts(run + std::chrono::seconds(5))}, {"taskId", "load"},
                                      {"message", "Deleted the slot's rows, inserted " + std::to_string(rows) + " rows into " + w.table}}})}};
    if (labelled) ex["labels"] = Json::array({{{"key", "backfill"}, {"value", "true"}}});
    d.kestra["executions"].push_back(ex);
    // The slot's rows are replaced: its own load landed them at slot + 1 s over 4 s.
    const std::string from = SqlTs(slot), to = SqlTs(Minutes(slot, 60));
    std::string sql = "DELETE FROM " + w.table + " WHERE landed_at >= '" + from + "' AND landed_at < '" + to + "';\n" +
                      ArrivalsSql(w, slot + std::chrono::seconds(1), 4, rows, 0, batch + "-" + std::to_string(i));
    d.events.push_back({run + std::chrono::seconds(6), "Kestra + warehouse",
                        "A backfill of " + l.ns + "." + l.flow + " reloads the " + Ts(slot).substr(11, 5) + " slot with " +
                            std::to_string(rows) + " of its rows",
                        sql, "", ""});
  }
  d.events.push_back({at, "Kestra", "Someone backfills the schedule of " + l.ns + "." + l.flow + " over the last " + std::to_string(slots) + " hours", "", "", ""});
  AddLoadedTableChecks(d, w, "90m");
  // What a team checks on an hourly-loaded table: the last six hours hold about six loads.
  d.check_yaml.push_back("  - table: main." + w.table + "\n    time_column: landed_at\n    volume: {min_rows: " +
                         std::to_string(static_cast<int>(0.85 * 6 * l.rows * 0.9)) + ", window: 6h}\n");
  d.world_note = "A Kestra flow loads " + w.table + " every hour; a backfill of its schedule over the last " + std::to_string(slots) +
                 " hours reloads each slot from a staging table holding " + std::to_string(static_cast<int>(kept * 100)) + "% of its rows.";
  d.story.shape += ", " + std::to_string(l.rows) + " rows/h, " + std::to_string(slots) + " slots backfilled" + (labelled ? " (labelled)" : "");
  AddDistractors(rng, d, w, at);
  if (benign) {
    ExpectQuiet(d);
    return Render(std::move(d));
  }
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"execution"}, l.asset};
  d.story.first_bad_write = at + std::chrono::seconds(6);
  // The cause is one of the backfill's runs, not a routine run of the same flow: its id says so.
  d.expect_yaml.push_back("  - incident:\n      asset: " + w.asset + "\n      cause: {kind: [execution], asset: " + l.asset +
                          ", evidence_contains: [" + batch + "x]}\n");
  return Render(std::move(d));
}

}  // namespace

Result<Story> KestraBackfillOverwrites(uint64_t seed) { return BackfillStory("kestra-backfill-overwrites", seed, false); }
Result<Story> KestraBackfillSameRows(uint64_t seed) { return BackfillStory("kestra-backfill-same-rows", seed, true); }

}  // namespace dw::replay::families
