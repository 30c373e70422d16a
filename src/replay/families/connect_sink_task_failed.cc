// Incident: one task of a sink connector fails while the connector stays RUNNING; its partition
// stops landing.
#include "replay/families/families_list.h"
#include "replay/families/loaders.h"

namespace dw::replay::families {

namespace {
const std::vector<std::string> kRoots = {
    "org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than the max message size the server will accept.",
    "org.apache.kafka.common.errors.SerializationException: Error deserializing Avro message for id 4711",
    "com.google.cloud.bigquery.BigQueryException: Quota exceeded: Your table exceeded quota for imports or query appends per table",
    "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms."};
}  // namespace

const std::vector<std::string> kSinkClasses = {"com.wepay.kafka.connect.bigquery.BigQuerySinkConnector",
                                           "com.snowflake.kafka.connector.SnowflakeSinkConnector",
                                           "io.confluent.connect.jdbc.JdbcSinkConnector"};

Json SinkConnector(const SinkStream& s, const std::string& topic, const std::string& cls, TimePoint since) {
  Json running = Json::array();
  for (int p = 0; p < s.partitions; ++p) running.push_back("RUNNING");
  return {{"name", s.name}, {"type", "sink"},
          {"config", {{"connector.class", cls}, {"topics", topic}, {"tasks.max", std::to_string(s.partitions)}}},
          {"states", Json::array({{{"at", Ts(since)}, {"connector", "RUNNING"}, {"tasks", running}}})}};
}

std::string TaskTrace(const std::string& root) {
  return "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n"
         "\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:632)\n"
         "\tat org.apache.kafka.connect.runtime.WorkerTask.doRun(WorkerTask.java:204)\nCaused by: " + root + "\n\t... 14 more";
}

Result<Story> ConnectSinkTaskFailed(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("connect-sink-task-failed", seed, false, rng, 4);
  ShopWorld w = DrawWorld(rng, d);
  SinkStream s{"sink-" + w.table, "connect://connect/sink-" + w.table, rng.Int(2, 4), rng.Int(30, 120) * 10, rng.Real(0.02, 0.06)};
  int failed = rng.Int(0, s.partitions - 1);
  TimePoint fail = Minutes(d.start, rng.Int(30, 4 * 60 - 100));
  d.world_note = "A sink connector lands " + w.table + " from " + std::to_string(s.partitions) + " partitions; task " +
                 std::to_string(failed) + " fails and its partition stops landing.";
  d.setup_sql = CreateTableSql(w);
  const int64_t fail_ms = ToUnixMillis(fail);
  std::optional<TimePoint> first_short;
  AddSinkArrivals(rng, d, w, s, [&](TimePoint end, int part) {
    if (part != failed) return 1.0;
    int64_t end_ms = ToUnixMillis(end), begin_ms = end_ms - 600000;
    if (end_ms <= fail_ms) return 1.0;
    if (!first_short) first_short = end;
    return begin_ms >= fail_ms ? 0.0 : static_cast<double>(fail_ms - begin_ms) / 600000.0;
  });
  if (!first_short) return InvalidArgument("connect-sink-task-failed, seed " + std::to_string(seed) +
                                            ": the story breaks a constraint: the task fails after the last arrivals");
  Json connector = SinkConnector(s, w.table, rng.Pick(kSinkClasses), Minutes(d.start, -4 * 24 * 60));
  Json tasks = Json::array();
  std::string root = rng.Pick(kRoots);
  for (int p = 0; p < s.partitions; ++p)
    tasks.push_back(p == failed ? Json{{"state", "FAILED"}, {"trace", TaskTrace(root)}} : Json("RUNNING"));
  connector["states"].push_back({{"at", Ts(fail)}, {"connector", "RUNNING"}, {"tasks", tasks}});
  d.connect["connectors"] = Json::array({connector});
  d.events.push_back({fail, "Kafka Connect", "Task " + std::to_string(failed) + " of " + s.name + " fails (" +
                                                 root.substr(0, root.find(':')) + "); the connector stays RUNNING", "", "", ""});
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"connector_state"}, s.asset};
  d.story.first_bad_write = fail;  // the failed partition's rows stop landing then
  d.story.shape += ", " + std::to_string(s.partitions) + " partitions, " + std::to_string(s.per_10m) + " rows/10m";
  AddDistractors(rng, d, w, fail);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
