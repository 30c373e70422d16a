// Incident: a Connect worker is lost; the sink's task restarts elsewhere from its last committed
// offset and lands the rows since that commit a second time (at-least-once delivery).
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> ConnectFailoverDuplicates(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("connect-failover-duplicates", seed, false, rng, 4);
  ShopWorld w = DrawWorld(rng, d);
  SinkStream s{"sink-" + w.table, "connect://connect/sink-" + w.table, rng.Int(2, 4), rng.Int(30, 120) * 10, rng.Real(0.02, 0.06)};
  int task = rng.Int(0, s.partitions - 1);
  // The failover lands between two windows; the task is back 6 to 15 minutes later.
  TimePoint lost = Minutes(d.start, rng.Int(3, 14) * 10 + rng.Int(1, 8));
  TimePoint back = Minutes(lost, rng.Int(6, 15));
  d.world_note = "A sink connector lands " + w.table + "; a worker is lost, task " + std::to_string(task) +
                 " restarts on another worker from its last committed offset and lands those rows again.";
  d.setup_sql = CreateTableSql(w);
  AddSinkArrivals(rng, d, w, s, [](TimePoint, int) { return 1.0; });
  // The window before the failure is the one re-delivered: its rows of the task's partition, again.
  int64_t window_end_min = (ToUnixMillis(lost) / 60000 / 10) * 10;
  TimePoint window_end = FromUnixMillis(window_end_min * 60000);
  int64_t m = (ToUnixMillis(window_end) - ToUnixMillis(d.start)) / 60000;
  int per_part = s.per_10m / s.partitions;
  int again = static_cast<int>(per_part * rng.Real(0.3, 1.0));
  d.events.push_back({back, "Kafka Connect + warehouse",
                      "Task " + std::to_string(task) + " restarts from the last committed offset and lands " + std::to_string(again) + " rows a second time",
                      ArrivalsSql(w, Minutes(window_end, -10), 590, again, task, w.table + "-" + std::to_string(m) + "-" + std::to_string(task)), "", ""});
  Json connector = SinkConnector(s, w.table, rng.Pick(kSinkClasses), Minutes(d.start, -4 * 24 * 60));
  Json failed = Json::array(), running = Json::array();
  for (int p = 0; p < s.partitions; ++p) {
    failed.push_back(p == task ? Json{{"state", "FAILED"}, {"trace", TaskTrace("org.apache.kafka.common.errors.DisconnectException: worker connect-2 left the group; task reassigned")}}
                               : Json("RUNNING"));
    running.push_back("RUNNING");
  }
  connector["states"].push_back({{"at", Ts(lost)}, {"connector", "RUNNING"}, {"tasks", failed}});
  connector["states"].push_back({{"at", Ts(back)}, {"connector", "RUNNING"}, {"tasks", running}});
  d.connect["connectors"] = Json::array({connector});
  d.events.push_back({lost, "Kafka Connect", "Worker connect-2 is lost; task " + std::to_string(task) + " of " + s.name + " fails over", "", "", ""});
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"connector_state"}, s.asset};
  d.story.first_bad_write = back;
  d.story.shape += ", " + std::to_string(s.partitions) + " partitions, " + std::to_string(s.per_10m) + " rows/10m";
  AddDistractors(rng, d, w, back);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
