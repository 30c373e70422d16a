// Incident: a revision of the hourly loader writes landed_at in a local zone's wall time, labelled
// UTC, so every row after it is stamped hours early or late (a time-zone slip).
#include <cmath>

#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraTimezoneShift(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-timezone-shift", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  // The zone whose wall time is written as UTC: east (rows from the future) or west (rows hours old).
  struct Zone {
    const char* name;
    int offset_minutes;
  };
  const std::vector<Zone> zones = {{"Europe/Berlin", 60},  {"Europe/Helsinki", 120}, {"Asia/Kolkata", 330},
                                   {"America/New_York", -300}, {"America/Chicago", -360}, {"America/Los_Angeles", -480}};
  const Zone zone = rng.Pick(zones);
  TimePoint saved = Minutes(d.start, rng.Int(10, 6 * 60 - 150));
  d.world_note = std::string("A Kestra flow loads ") + w.table + " every hour; revision 2 stamps landed_at with " + zone.name +
                 "'s wall time labelled UTC, so every row after it is " + std::to_string(std::abs(zone.offset_minutes)) +
                 " minutes " + (zone.offset_minutes > 0 ? "ahead of" : "behind") + " the time it landed.";
  d.setup_sql = CreateTableSql(w);
  auto runs = AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool after = run > saved;
    LoadStyle s{true, after ? 2 : 1, 1.0, false};
    s.shift_minutes = after ? zone.offset_minutes : 0;
    return s;
  });
  std::string select = "INSERT INTO " + w.table + " (id, customer_id, amount, landed_at) SELECT id, customer_id, amount, "
                       "strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM staging." + w.table;
  std::string revised = select;
  revised.replace(revised.find("'now'"), 5, "'now', 'localtime'");
  TimePoint first_bad = PlantLoaderRevision(d, w, l, runs, saved, select, revised,
                                            std::string("landed_at now written in local time (the worker runs in ") + zone.name + ")");
  // The hourly count a team watches on its load time, with two weeks of its history.
  const std::string metric = w.table + "_per_hour";
  d.monitor_yaml.push_back("  - name: " + metric + "\n    warehouse: main\n    asset: " + w.asset + "\n    sql: \"SELECT count(*) FROM " +
                           w.table + " WHERE landed_at >= :window_start AND landed_at < :window_end\"\n    every: 1h\n"
                           "    seasonality: none\n    direction: both\n");
  std::string csv = "timestamp,value\n";
  for (TimePoint h = Minutes(d.start, -14 * 24 * 60); h < Minutes(d.start, -6 * 60); h = Minutes(h, 60))
    csv += Ts(h) + "," + std::to_string(std::lround(l.rows * rng.Real(0.9, 1.1))) + "\n";
  d.history[metric] = csv;
  d.story.shape += std::string(", ") + zone.name;
  AddDistractors(rng, d, w, first_bad);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
