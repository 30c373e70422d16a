// Kafka Connect: connector state transitions, judged with the task states (a FAILED task under a
// RUNNING connector is unhealthy). Connect keeps no time of a transition and no history of one
// (its REST API answers the current state only), so happened_at is when the pass saw it and the
// evidence says so (time_source: observed, time_bound: at_or_before: the transition happened at
// or before that time). Cursor "states" {name: signature}. The first pass has no window to read:
// it reports every connector that is not healthy now (a FAILED task, a restart in progress), the
// only trace a transition before onboarding leaves; a healthy one is the baseline.
#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "platforms/kafka_connect/connect_client.h"

namespace dw::observe::changes {

Status CollectKafkaConnect(const CollectContext& ctx, Collected& out, PlatformPass& pass) {
  platforms::kafka_connect::ConnectClient connect(ctx.platform, ctx.http);
  ++pass.requests;
  auto connectors = connect.Connectors();
  if (!connectors.ok()) return connectors.status();
  auto seen = JsonCursor(ctx, "states");
  if (!seen.ok()) return seen.status();
  Json next = Json::object();
  int64_t now = ToUnixMillis(ctx.clock.Now());
  for (const auto& [name, s] : *connectors) {
    std::string verdict = platforms::kafka_connect::Verdict(s);
    std::string signature = s.state;
    Json tasks = Json::array();
    for (const auto& t : s.tasks) {
      signature += "," + std::to_string(t.id) + ":" + t.state;
      Json task = {{"id", t.id}, {"state", t.state}, {"worker_id", t.worker_id}};
      if (!t.trace.empty()) task["trace_head"] = platforms::kafka_connect::TraceHead(t.trace);
      tasks.push_back(task);
    }
    next[name] = signature;
    bool first = !seen->contains(name);
    if ((first && verdict == "healthy") || (!first && (*seen)[name] == signature)) continue;
    double risk = verdict == "unhealthy" ? 0.7 : verdict == "degraded" ? 0.4 : verdict == "paused" ? 0.3 : 0.1;
    out.events.push_back(MakeEvent(
        ctx, "connect:" + ctx.platform.name + ":" + name + ":" + signature + ":" + std::to_string(now),
        AssetIdFor("kafka-connect", ctx.platform.name, name), kConnectorState, now,
        {{"connector", name}, {"state", s.state}, {"tasks", tasks}, {"verdict", verdict},
         {"previous", first ? Json(nullptr) : (*seen)[name]}, {"time_source", "observed"},
         {"time_bound", "at_or_before"},
         {"url", connect.call().Url({"connectors", name, "status"})}},
        risk, "connector " + name + " is " + verdict + " (connector " + s.state + ", tasks " + signature.substr(s.state.size()) + ")"));
  }
  out.cursors[CursorName(ctx.platform, "states")] = next.dump();
  return Status::Ok();
}

}  // namespace dw::observe::changes
