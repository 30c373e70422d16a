#include "replay/families/loaders.h"

#include <cmath>

namespace dw::replay::families {

namespace {

std::string Stamp(TimePoint t) {  // 2026112409
  std::string s = Ts(t);
  return s.substr(0, 4) + s.substr(5, 2) + s.substr(8, 2) + s.substr(11, 2) + s.substr(14, 2);
}

}  // namespace

Json ScheduleTrigger(TimePoint slot) {
  return {{"id", "schedule"}, {"type", "io.kestra.plugin.core.trigger.Schedule"}, {"variables", {{"date", Ts(slot)}}}};
}

std::vector<TimePoint> AddHourlyLoads(Rng& rng, Draft& d, const ShopWorld& w, HourlyLoader& l,
                                      const std::function<LoadStyle(TimePoint run)>& style) {
  std::string mm = (l.minute < 10 ? "0" : "") + std::to_string(l.minute);
  d.asset_yaml.push_back("  - id: " + l.asset + "\n    domain: " + w.domain + "\n    owner: " + w.owner + "\n    writes: [" +
                         w.asset + "]\n    schedule: \"" + std::to_string(l.minute) + " * * * *\"\n");
  Json& flows = d.kestra["flows"];
  if (flows.is_null()) flows = Json::array();
  Json& execs = d.kestra["executions"];
  if (execs.is_null()) execs = Json::array();
  std::vector<TimePoint> inside;
  int64_t start_min = ToUnixMillis(d.start) / 60000;
  int64_t first_hour = (start_min / 60 - 6) * 60 + l.minute;
  for (int64_t m = first_hour; m * 60000 <= ToUnixMillis(d.end) - 60000; m += 60) {
    TimePoint run = FromUnixMillis(m * 60000);
    LoadStyle st = style(run);
    if (!st.runs) continue;
    int rows = static_cast<int>(std::lround(l.rows * rng.Real(0.9, 1.1)));
    std::string id = "ex" + Stamp(run) + std::to_string(rng.Int(100, 999));
    Json ex = {{"id", id}, {"namespace", l.ns}, {"flowId", l.flow}, {"flowRevision", st.revision}, {"state", "SUCCESS"},
               {"start", Ts(run)}, {"end", Ts(run + std::chrono::seconds(5))},
               {"trigger", ScheduleTrigger(run)},
               {"taskRuns", Json::array({{{"taskId", "load"}, {"outputs", {{"rows", rows}}}}})},
               {"logs", Json::array({{{"at", Ts(run + std::chrono::seconds(4))}, {"taskId", "load"},
                                      {"message", "Inserted " + std::to_string(rows) + " rows into " + w.table}}})}};
    execs.push_back(ex);
    std::string sql = ArrivalsSql(w, run + std::chrono::seconds(1) + std::chrono::minutes(st.shift_minutes), 4, rows, 0,
                                  w.table + "-" + Stamp(run), st.amount_scale, st.null_customer);
    if (run < d.start) {
      d.setup_sql += sql;
    } else {
      inside.push_back(run);
      d.events.push_back({run + std::chrono::seconds(5), "Kestra + warehouse",
                          l.ns + "." + l.flow + " runs as scheduled (:" + mm + ") and loads " + std::to_string(rows) + " rows", sql, "", ""});
    }
  }
  return inside;
}

void AddLoadedTableChecks(Draft& d, const ShopWorld& w, const std::string& max_age) {
  d.check_yaml.push_back("  - table: main." + w.table + "\n    time_column: landed_at\n    not_null: [id, customer_id, amount]\n"
                         "    unique: [id]\n    freshness: {max_age: " + max_age + "}\n    range: {amount: {min: 0, max: 1000}}\n");
}

TimePoint PlantLoaderRevision(Draft& d, const ShopWorld& w, const HourlyLoader& l, const std::vector<TimePoint>& runs,
                         TimePoint saved, const std::string& before, const std::string& after,
                         const std::string& what) {
  const std::string cron = std::to_string(l.minute) + " * * * *";
  d.kestra["flows"].push_back({{"namespace", l.ns}, {"id", l.flow}, {"revision", 1},
                               {"source", LoaderSource(l.ns, l.flow, before, cron)},
                               {"revisions", Json::array({{{"revision", 2}, {"at", Ts(saved)},
                                                           {"source", LoaderSource(l.ns, l.flow, after, cron)}}})},
                               {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
  d.events.push_back({saved, "Kestra", "Revision 2 of " + l.ns + "." + l.flow + " is saved: " + what, "", "", ""});
  AddLoadedTableChecks(d, w, "90m");
  TimePoint first_bad{};
  for (TimePoint r : runs)
    if (r > saved) {
      first_bad = r + std::chrono::seconds(5);
      break;
    }
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"flow_revision", "execution"}, l.asset};
  d.story.first_bad_write = first_bad;
  d.story.shape += ", " + std::to_string(l.rows) + " rows/h";
  return first_bad;
}

void AddSinkArrivals(Rng& rng, Draft& d, const ShopWorld& w, SinkStream& s,
                     const std::function<double(TimePoint window_end, int part)>& landed) {
  d.asset_yaml.push_back("  - id: kafka://prod/" + w.table + "\n    domain: " + w.domain + "\n");
  d.asset_yaml.push_back("  - id: " + s.asset + "\n    domain: " + w.domain + "\n    owner: " + w.owner + "\n    reads: [kafka://prod/" +
                         w.table + "]\n    writes: [" + w.asset + "]\n");
  int per_part = s.per_10m / s.partitions;
  // The half hour before the clock, so the first 30-minute volume window sees a full table.
  for (int k = 3; k >= 1; --k)
    for (int p = 0; p < s.partitions; ++p)
      d.setup_sql += ArrivalsSql(w, Minutes(d.start, -10 * k), 590, per_part, p,
                                 w.table + "-pre" + std::to_string(k) + "-" + std::to_string(p));
  int64_t minutes = (ToUnixMillis(d.end) - ToUnixMillis(d.start)) / 60000;
  for (int64_t m = 10; m <= minutes; m += 10) {  // the window (m-10, m] after the clock's start
    TimePoint end = Minutes(d.start, m);
    std::string sql;
    int total = 0, expected = 0;
    for (int p = 0; p < s.partitions; ++p) {
      int rows = static_cast<int>(std::lround(per_part * rng.Real(1 - s.noise, 1 + s.noise)));
      expected += rows;
      int n = static_cast<int>(std::lround(rows * landed(end, p)));
      total += n;
      sql += ArrivalsSql(w, Minutes(end, -10), 590, n, p, w.table + "-" + std::to_string(m) + "-" + std::to_string(p));
    }
    // The window's rows are written as it opens, each stamped with its own landing time, so a
    // monitor that measures at any second of the clock counts what had landed by then (a batch
    // written when the window closes would hide its first seconds from a job due just after).
    d.events.push_back({Minutes(end, -10), "Kafka Connect + warehouse",
                        total == expected ? "The sink lands " + std::to_string(total) + " rows from " + std::to_string(s.partitions) + " partitions"
                                          : "Only " + std::to_string(total) + " of " + std::to_string(expected) + " rows land",
                        sql, "", ""});
  }
  int min_rows = static_cast<int>(0.8 * 3 * s.per_10m);
  d.check_yaml.push_back("  - table: main." + w.table + "\n    time_column: landed_at\n    not_null: [id, amount]\n    unique: [id]\n"
                         "    volume: {min_rows: " + std::to_string(min_rows) + ", window: 30m}\n");
  d.monitor_yaml.push_back("  - name: " + w.table + "_per_10m\n    warehouse: main\n    asset: " + w.asset +
                           "\n    sql: \"SELECT count(*) FROM " + w.table +
                           " WHERE landed_at >= :window_start AND landed_at < :window_end\"\n    every: 10m\n"
                           "    seasonality: none\n    direction: drop\n");
  std::string csv = "timestamp,value\n";
  TimePoint h = Minutes(d.start, -14 * 24 * 60);
  for (; h < d.start; h = Minutes(h, 10))
    csv += Ts(h) + "," + std::to_string(std::lround(s.per_10m * rng.Real(1 - s.noise, 1 + s.noise))) + "\n";
  d.history[w.table + "_per_10m"] = csv;
}

void ExpectIncident(Draft& d) {
  std::string kinds;
  for (const auto& k : d.story.cause.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  d.expect_yaml.push_back("  - incident:\n      asset: " + d.story.damaged_asset + "\n      cause: {kind: [" + kinds +
                          "], asset: " + d.story.cause.asset + "}\n");
}

void ExpectQuiet(Draft& d) { d.expect_yaml.push_back("  - no_incident: {}\n"); }

}  // namespace dw::replay::families

namespace dw::replay::families {

Draft Begin(const std::string& family, uint64_t seed, bool benign, Rng& rng, int hours, int weekday) {
  Draft d;
  d.story.family = family;
  d.story.seed = seed;
  d.story.benign = benign;
  d.story.name = family + "-s" + std::to_string(seed);
  auto monday = FromUnixMillis(1788739200000);  // 2026-09-07T00:00:00Z, a Monday
  int week = rng.Int(0, 12);
  int day = weekday >= 0 ? weekday : rng.Int(0, 6);
  d.start = Minutes(monday, (int64_t{week} * 7 + day) * 24 * 60 + rng.Int(5, 10) * 60);
  d.end = Minutes(d.start, int64_t{hours} * 60);
  return d;
}

}  // namespace dw::replay::families
