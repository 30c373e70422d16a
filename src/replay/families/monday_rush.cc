// Benign: the Monday-morning rush, as every Monday in six weeks of history; the hourly monitor
// learns the hour of the week.
#include <cmath>

#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> MondayRush(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("monday-rush", seed, true, rng, 6, 0);
  ShopWorld w = DrawWorld(rng, d);
  int base = rng.Int(40, 200);
  double rush = rng.Real(2.0, 3.5), noise = rng.Real(0.03, 0.08);
  int rush_from = rng.Int(8, 9), rush_to = rng.Int(12, 13);
  double weekend = rng.Real(0.5, 0.8);
  d.world_note = "Orders follow the week; every Monday from " + std::to_string(rush_from) + ":00 the hourly volume rises " +
                 std::to_string(static_cast<int>(rush * 10) / 10.0).substr(0, 3) + "x, as in eight weeks of history.";
  auto expected = [&](TimePoint hour_start) {
    int64_t h = ToUnixMillis(hour_start) / 3600000;
    int hod = static_cast<int>(h % 24), dow = static_cast<int>(((h / 24) + 3) % 7);  // 1970-01-01 was a Thursday: Monday = 0
    double v = base * (hod < 6 ? 0.25 : hod < 8 ? 0.6 : hod < 20 ? 1.0 : 0.5);
    if (dow >= 5) v *= weekend;
    if (dow == 0 && hod >= rush_from && hod < rush_to) v *= rush;
    return v;
  };
  std::string csv = "timestamp,value\n";
  for (TimePoint h = Minutes(d.start, -56 * 24 * 60); h < d.start; h = Minutes(h, 60))
    // A monitor's point at h measures the hour before it (the window [h - 1h, h)).
    csv += Ts(h) + "," + std::to_string(std::lround(expected(Minutes(h, -60)) * rng.Real(1 - noise, 1 + noise))) + "\n";
  d.history[w.table + "_per_hour"] = csv;
  d.monitor_yaml.push_back("  - name: " + w.table + "_per_hour\n    warehouse: main\n    asset: " + w.asset + "\n    sql: \"SELECT count(*) FROM " +
                           w.table + " WHERE landed_at >= :window_start AND landed_at < :window_end\"\n    every: 1h\n"
                           "    seasonality: hour_of_week\n    direction: both\n    training_window: 42d\n");
  d.setup_sql = CreateTableSql(w) + ArrivalsSql(w, Minutes(d.start, -60), 3590, static_cast<int>(expected(Minutes(d.start, -60))), 0, w.table + "-pre");
  // Each hour's rows are written as it opens, each with its own landing time (see AddSinkArrivals).
  for (int k = 1; k <= 6; ++k) {
    TimePoint end = Minutes(d.start, 60 * k), from = Minutes(end, -60);
    int n = static_cast<int>(std::lround(expected(from) * rng.Real(1 - noise, 1 + noise)));
    int64_t hod = (ToUnixMillis(from) / 3600000) % 24;
    bool rushing = hod >= rush_from && hod < rush_to;
    d.events.push_back({from, "Shop + warehouse", std::to_string(n) + " " + w.table + " in the hour" + (rushing ? " (the Monday rush, as every Monday)" : ""),
                        ArrivalsSql(w, from, 3590, n, 0, w.table + "-" + std::to_string(k)), "", ""});
  }
  d.story.shape += ", " + std::to_string(base) + " rows/h base, rush x" + std::to_string(rush).substr(0, 4);
  AddDistractors(rng, d, w, Minutes(d.start, 60 * rng.Int(1, 5)));
  ExpectQuiet(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
