// A stateful Flink job keeps each customer's running total in state and writes it to a topic that
// a sink lands in the world's table; an hourly monitor watches the average total written. Three
// families plant one event of the job's life:
//   flink-restore-skips-state (incident): a release changes the aggregate's operator id and starts
//     from the savepoint with allowNonRestoredState, so its state is skipped and every total
//     restarts from zero while the job stays RUNNING;
//   flink-restore-keeps-state (benign): a release that only adds or drops a stateless operator
//     restores the aggregate's state (at most empty state is skipped);
//   flink-checkpoint-restart (benign): a TaskManager is lost and the job restarts from its latest
//     checkpoint, state intact.
#include <cmath>

#include "replay/families/families_list.h"

namespace dw::replay::families {
namespace {

enum class JobEvent { kReleaseSkipsState, kReleaseKeepsState, kCheckpointRestart };

std::string HexId(Rng& rng, int n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) out += kDigits[rng.Next() % 16];
  return out;
}

// The mean amount ArrivalsSql writes for `count` rows at scale 1 (its amounts are
// 5 + (i * 37) % 495), so the history says what the live rows will measure.
double MeanArrivalAmount(int count) {
  double sum = 0;
  for (int i = 0; i < count; ++i) sum += 5 + (i * 37) % 495;
  return count > 0 ? sum / count : 0;
}

Json Vertex(const std::string& id, const std::string& name, int parallelism) {
  return {{"id", id}, {"name", name}, {"parallelism", parallelism}};
}

Json LogLine(TimePoint at, int ms, const std::string& logger, const std::string& message) {
  return {{"at", Ts(at + std::chrono::milliseconds(ms))}, {"logger", "org.apache.flink.runtime.checkpoint." + logger},
          {"message", message}};
}

Result<Story> StatefulJobStory(const std::string& family, uint64_t seed, JobEvent event) {
  const bool benign = event != JobEvent::kReleaseSkipsState;
  Rng rng(seed);
  Draft d = Begin(family, seed, benign, rng, 5);
  ShopWorld w = DrawWorld(rng, d);
  const std::string job = w.table + "-totals", job_asset = "flink://flink/" + job;
  const std::string topic_in = "kafka://prod/" + w.table + "-events", topic_out = "kafka://prod/" + w.table + "-totals";
  const std::string sink = "connect://connect/sink-" + w.table + "-totals";
  const double level = rng.Real(300, 3000), noise = rng.Real(0.01, 0.05);
  const int per_10m = rng.Int(20, 200), parallelism = rng.Pick(std::vector<int>{2, 4, 8});
  const TimePoint at = Minutes(d.start, rng.Int(20, 100));  // the release or the TaskManager loss
  const TimePoint back = at + std::chrono::seconds(rng.Int(40, 240));
  d.asset_yaml.push_back("  - id: " + topic_in + "\n    domain: " + w.domain + "\n");
  d.asset_yaml.push_back("  - id: " + job_asset + "\n    domain: " + w.domain + "\n    owner: " + w.owner + "\n    reads: [" +
                         topic_in + "]\n    writes: [" + topic_out + "]\n    tags: [stateful]\n");
  d.asset_yaml.push_back("  - id: " + topic_out + "\n    domain: " + w.domain + "\n");
  d.asset_yaml.push_back("  - id: " + sink + "\n    domain: " + w.domain + "\n    reads: [" + topic_out + "]\n    writes: [" + w.asset + "]\n");

  // The job's operators: the source, an optional stateless filter, the aggregate, the sink.
  const std::string source_id = HexId(rng, 32), agg_id = HexId(rng, 32), sink_id = HexId(rng, 32);
  const std::string group = "GroupAggregate(groupBy=[customer_id], select=[customer_id, SUM(amount)])";
  const bool old_filter = rng.Chance(0.5);
  const std::string filter_id = HexId(rng, 32);
  auto vertices = [&](const std::string& agg, bool filter, const std::string& agg_name) {
    Json v = Json::array({Vertex(source_id, "Source: " + w.table + "-events", parallelism)});
    if (filter) v.push_back(Vertex(filter_id, "Calc(where=[channel <> 'test'])", parallelism));
    v.push_back(Vertex(agg, agg_name, parallelism));
    v.push_back(Vertex(sink_id, "Sink: " + w.table + "-totals (upsert-kafka)", parallelism));
    return v;
  };
  const std::string old_jid = HexId(rng, 32), new_jid = HexId(rng, 32);
  const std::vector<std::string> stores = {"s3://" + w.table + "-flink", "gs://" + w.table + "-flink-state", "hdfs:///flink"};
  const std::string base = rng.Pick(stores);
  const int chk = rng.Int(2000, 40000);
  Json logs = Json::array();
  if (event == JobEvent::kCheckpointRestart) {
    const std::string path = base + "/checkpoints/" + old_jid + "/chk-" + std::to_string(chk);
    d.flink["jobs"] = Json::array({{{"jid", old_jid}, {"name", job}, {"start_time", Ts(Minutes(d.start, -9 * 24 * 60))},
                                    {"vertices", vertices(agg_id, old_filter, group)},
                                    {"states", Json::array({{{"at", Ts(Minutes(d.start, -9 * 24 * 60))}, {"state", "RUNNING"}},
                                                            {{"at", Ts(at)}, {"state", "RESTARTING"}},
                                                            {{"at", Ts(back)}, {"state", "RUNNING"}}})},
                                    {"restores", Json::array({{{"id", chk}, {"at", Ts(back)}, {"is_savepoint", false}, {"external_path", path}}})},
                                    {"checkpoints", {{"completed", chk + 60}, {"failed", rng.Int(0, 3)}}},
                                    {"config", {{"execution.state-recovery.ignore-unclaimed-state", "false"}}},
                                    {"exceptions", Json::array({{{"at", Ts(at)}, {"name", "org.apache.flink.runtime.jobmaster.JobMasterException"},
                                                                 {"stacktrace", "org.apache.flink.runtime.jobmaster.JobMasterException: TaskManager with id " + job +
                                                                                    "-taskmanager-1-" + std::to_string(rng.Int(1, 4)) + " is no longer reachable."},
                                                                 {"task", group + " (1/" + std::to_string(parallelism) + ")"}}})}}});
    logs.push_back(LogLine(back, 401, "CheckpointCoordinator", "Restoring job " + old_jid + " from Checkpoint " + std::to_string(chk) + " @ " +
                                                                   std::to_string(ToUnixMillis(at) - 60000) + " for " + old_jid + " located at " + path + "."));
    d.events.push_back({at, "Flink", "A TaskManager of " + job + " is lost; the job restarts from checkpoint " + std::to_string(chk) + ", its state intact", "", "", ""});
  } else {
    // A release: the operator takes a savepoint of the old job, stops it, and starts the new one.
    const bool skips = event == JobEvent::kReleaseSkipsState;
    const std::string path = base + "/savepoints/" + job + "/savepoint-" + old_jid.substr(0, 6) + "-" + HexId(rng, 12);
    const bool new_filter = skips ? rng.Chance(0.5) : !old_filter;  // a benign release adds or drops the filter
    const std::string new_agg = skips ? HexId(rng, 32) : agg_id;
    const std::string new_group = skips ? "GroupAggregate(groupBy=[customer_id], select=[customer_id, SUM(amount), LAST_VALUE(channel)])" : group;
    const bool allow = skips || rng.Chance(0.5);
    d.flink["jobs"] = Json::array(
        {{{"jid", old_jid}, {"name", job}, {"state", "FINISHED"}, {"start_time", Ts(Minutes(d.start, -9 * 24 * 60))},
          {"end_time", Ts(at + std::chrono::seconds(5))}, {"vertices", vertices(agg_id, old_filter, group)},
          {"checkpoints", {{"completed", chk}, {"failed", rng.Int(0, 3)}}},
          {"config", {{"execution.state-recovery.ignore-unclaimed-state", allow ? "true" : "false"}}}},
         {{"jid", new_jid}, {"name", job}, {"state", "RUNNING"}, {"start_time", Ts(back)},
          {"vertices", vertices(new_agg, new_filter, new_group)},
          {"restored", {{"id", chk}, {"at", Ts(back + std::chrono::milliseconds(412))}, {"is_savepoint", true}, {"external_path", path}}},
          {"checkpoints", {{"completed", rng.Int(10, 80)}, {"failed", 0}}},
          {"config", {{"execution.state-recovery.ignore-unclaimed-state", allow ? "true" : "false"},
                      {"execution.state-recovery.path", path}}}}});
    logs.push_back(LogLine(at, 118, "CheckpointCoordinator", "Triggering checkpoint " + std::to_string(chk) +
                                                                  " (type=SavepointType{name='Savepoint', postCheckpointAction=NONE, formatType=CANONICAL}) @ " +
                                                                  std::to_string(ToUnixMillis(at) + 118) + " for job " + old_jid + "."));
    logs.push_back(LogLine(at, 2905, "CheckpointCoordinator", "Completed checkpoint " + std::to_string(chk) + " for job " + old_jid + " (" +
                                                                   std::to_string(rng.Int(1000000, 90000000)) + " bytes, checkpointDuration=2787 ms, finalizationTime=0 ms)."));
    logs.push_back(LogLine(back, 401, "CheckpointCoordinator", "Starting job " + new_jid + " from savepoint " + path +
                                                                    (allow ? " (allowing non restored state)" : "")));
    if (old_filter && !new_filter)
      logs.push_back(LogLine(back, 407, "Checkpoints", "Skipping empty savepoint state for operator " + filter_id + "."));
    if (skips) logs.push_back(LogLine(back, 409, "Checkpoints", "Skipping savepoint state for operator " + agg_id + "."));
    logs.push_back(LogLine(back, 415, "CheckpointCoordinator", "Restoring job " + new_jid + " from Savepoint " + std::to_string(chk) + " @ 0 for " +
                                                                    new_jid + " located at " + path + "."));
    d.events.push_back({at, "Kubernetes Operator + Flink", job + " is released (" + std::string(skips ? "the aggregate's SQL changes" : new_filter ? "a stateless filter is added" : "a stateless filter is dropped") +
                                                                "); the operator takes savepoint " + std::to_string(chk) + " and stops the old job", "", "", ""});
    d.events.push_back({back, "Flink", std::string(skips ? "The new job starts from the savepoint with allowNonRestoredState; the aggregate's state is skipped and every total restarts from zero"
                                                         : "The new job restores the savepoint; the aggregate's state carries on"), "", "", ""});
  }
  d.flink["logs"] = Json::array({{{"name", "jobmanager.log"}, {"lines", logs}}});
  d.flink["jobmanager_config"] = {{"state.backend.type", "rocksdb"}, {"execution.checkpointing.interval", "60 s"}};

  // Every ten minutes the sink lands `per_10m` totals; after a skipped restore they restart small.
  const double mean = MeanArrivalAmount(per_10m);
  d.setup_sql = CreateTableSql(w);
  std::optional<TimePoint> first_bad;
  for (TimePoint t = Minutes(d.start, -60); t < d.end; t = Minutes(t, 10)) {
    double scale = level / mean * rng.Real(1 - noise, 1 + noise);
    bool restarted = event == JobEvent::kReleaseSkipsState && t >= back;
    if (restarted) {
      double hours = static_cast<double>(ToUnixMillis(t) - ToUnixMillis(back)) / 3600000.0;
      scale *= 0.01 + 0.02 * hours;  // the totals grow back from zero, purchase by purchase
      if (!first_bad) first_bad = t;
    }
    std::string sql = ArrivalsSql(w, t, 590, per_10m, 0, w.table + "-" + std::to_string(ToUnixMillis(t) / 60000), scale);
    if (t < d.start) d.setup_sql += sql;
    else d.events.push_back({t, "Kafka Connect + warehouse", std::string("The sink lands ") + std::to_string(per_10m) +
                                                                 (restarted ? " totals that restarted from zero" : " running totals"), sql, "", ""});
  }
  const std::string metric = "avg_" + w.table + "_total";
  std::string csv = "timestamp,value\n";
  for (TimePoint h = Minutes(d.start, -14 * 24 * 60); h < Minutes(d.start, -60); h = Minutes(h, 60))
    csv += Ts(h) + "," + std::to_string(std::lround(level * rng.Real(1 - noise / 2, 1 + noise / 2))) + "\n";
  d.history[metric] = csv;
  d.monitor_yaml.push_back("  - name: " + metric + "\n    warehouse: main\n    asset: " + w.asset + "\n    sql: \"SELECT avg(amount) FROM " +
                           w.table + " WHERE landed_at >= :window_start AND landed_at < :window_end\"\n    every: 1h\n"
                           "    seasonality: none\n    direction: drop\n");
  d.check_yaml.push_back("  - table: main." + w.table + "\n    time_column: landed_at\n    not_null: [id, amount]\n    range: {amount: {min: 0}}\n");
  d.world_note = "A stateful Flink job keeps each customer's running total of " + w.table + " and a sink lands the totals; " +
                 (event == JobEvent::kReleaseSkipsState ? "a release skips the aggregate's savepoint state and every total restarts from zero."
                  : event == JobEvent::kReleaseKeepsState ? "a release restores the aggregate's state (at most empty state is skipped)."
                                                          : "a TaskManager is lost and the job restarts from its latest checkpoint.");
  d.story.shape += ", " + std::to_string(per_10m) + " totals/10m at ~" + std::to_string(std::lround(level)) + ", parallelism " + std::to_string(parallelism);
  if (benign) {
    AddDistractors(rng, d, w, Minutes(back, 10));
    // The restore was seen, and nothing was taken for skipped state: a quiet replay that never
    // read the job would pass for right otherwise. (The family is judged by the last expectation.)
    d.expect_yaml.push_back("  - change: {kind: restore, asset: " + job_asset + ", present: true}\n");
    d.expect_yaml.push_back("  - change: {kind: restore_skipped_state, asset: " + job_asset + ", present: false}\n");
    ExpectQuiet(d);
  } else {
    if (!first_bad) return InvalidArgument(family + ", seed " + std::to_string(seed) + ": the story breaks a constraint: no total lands after the restore");
    d.story.damaged_asset = w.asset;
    d.story.cause = {{"restore_skipped_state", "restore", "deploy"}, job_asset};
    d.story.first_bad_write = *first_bad;
    AddDistractors(rng, d, w, *first_bad);
    ExpectIncident(d);
  }
  return Render(std::move(d));
}

}  // namespace

Result<Story> FlinkRestoreSkipsState(uint64_t seed) {
  return StatefulJobStory("flink-restore-skips-state", seed, JobEvent::kReleaseSkipsState);
}
Result<Story> FlinkRestoreKeepsState(uint64_t seed) {
  return StatefulJobStory("flink-restore-keeps-state", seed, JobEvent::kReleaseKeepsState);
}
Result<Story> FlinkCheckpointRestart(uint64_t seed) {
  return StatefulJobStory("flink-checkpoint-restart", seed, JobEvent::kCheckpointRestart);
}

}  // namespace dw::replay::families
