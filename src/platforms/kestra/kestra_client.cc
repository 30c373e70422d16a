#include "platforms/kestra/kestra_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "base/clock.h"
#include "base/iso_time.h"

namespace dw::platforms::kestra {
namespace {

std::string QueryEncode(std::string_view s) { return net::EncodePathSegment(s); }

int64_t RequiredIso(const Json& j, std::string_view key) {
  std::string s = StringField(j, key);
  auto ms = ParseIsoTimeMillis(s);
  if (!ms) throw ResponseShapeError("field \"" + std::string(key) + "\" is not a date-time: " + s);
  return *ms;
}

// A flow's `updated` (AbstractFlow: when this revision was created or last updated), when it is
// there; a value that is not a date-time is a malformed answer, not a missing one.
std::optional<int64_t> OptUpdated(const Json& flow) {
  if (!flow.contains("updated") || flow["updated"].is_null()) return std::nullopt;
  return RequiredIso(flow, "updated");
}

Execution ParseExecution(const Json& j) {
  RequireObject(j, "an execution");
  Execution e;
  e.id = StringField(j, "id");
  e.namespace_ = StringField(j, "namespace");
  e.flow_id = StringField(j, "flowId");
  e.flow_revision = OptIntField(j, "flowRevision");
  const Json& st = ObjectField(j, "state");
  e.state = StringField(st, "current");
  e.start_ms = RequiredIso(st, "startDate");
  if (st.contains("endDate") && !st["endDate"].is_null()) e.end_ms = RequiredIso(st, "endDate");
  if (st.contains("duration") && !st["duration"].is_null()) {
    if (!st["duration"].is_number())
      throw ResponseShapeError("field \"state.duration\" should be a number of seconds");
    e.duration_s = st["duration"].get<double>();
  }
  if (j.contains("taskRunList") && !j["taskRunList"].is_null()) {
    for (const auto& t : ArrayField(j, "taskRunList")) {
      RequireObject(t, "a task run");
      TaskRun tr;
      tr.id = StringField(t, "id");
      tr.task_id = StringField(t, "taskId");
      tr.state = StringField(ObjectField(t, "state"), "current");
      if (t.contains("outputs") && t["outputs"].is_object()) tr.outputs = t["outputs"];
      if (t.contains("attempts") && t["attempts"].is_array()) tr.attempts = static_cast<int>(t["attempts"].size());
      e.task_runs.push_back(std::move(tr));
    }
  }
  if (j.contains("labels") && j["labels"].is_array()) e.labels = j["labels"];
  if (j.contains("trigger") && j["trigger"].is_object()) {
    const Json& t = j["trigger"];
    e.has_trigger = true;
    e.trigger_type = OptStringField(t, "type");
    e.trigger_id = OptStringField(t, "id");
    if (t.contains("variables") && t["variables"].is_object()) e.trigger_date = OptStringField(t["variables"], "date");
  }
  if (j.contains("originalId") && j["originalId"].is_string()) e.original_id = j["originalId"].get<std::string>();
  if (st.contains("histories") && st["histories"].is_array())
    for (const auto& h : st["histories"])
      if (h.is_object() && h.contains("state") && h["state"].is_string()) e.state_history.push_back(h["state"].get<std::string>());
  return e;
}

}  // namespace

bool Execution::terminal() const {
  return state == "SUCCESS" || state == "FAILED" || state == "WARNING" || state == "KILLED" ||
         state == "CANCELLED" || state == "SKIPPED";
}

KestraClient::KestraClient(const config::PlatformConfig& platform, net::HttpClient& http)
    : call_(platform, http) {}

std::string KestraClient::tenant() const {
  return call_.platform().tenant.empty() ? "main" : call_.platform().tenant;
}

std::vector<std::string> KestraClient::Api(std::vector<std::string> rest) const {
  std::vector<std::string> out = {"api", "v1", tenant()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Result<ExecutionPage> KestraClient::SearchExecutions(const ExecutionQuery& q) const {
  std::string query = "page=" + std::to_string(std::max(1, q.page)) +
                      "&size=" + std::to_string(std::max(1, q.size)) + "&sort=state.startDate:asc";
  if (!q.namespace_.empty()) query += "&filters[namespace][EQUALS]=" + QueryEncode(q.namespace_);
  if (!q.flow_id.empty()) query += "&filters[flowId][EQUALS]=" + QueryEncode(q.flow_id);
  if (q.start_from_ms)
    query += "&filters[startDate][GTE]=" + QueryEncode(FormatRfc3339(FromUnixMillis(*q.start_from_ms)));
  auto j = call_.GetJson(Api({"executions", "search"}), query);
  if (!j.ok()) return j.status();
  return call_.Parse<ExecutionPage>("GET /api/v1/" + tenant() + "/executions/search", [&] {
    ExecutionPage page;
    page.total = IntField(*j, "total");
    for (const auto& e : ArrayField(*j, "results")) page.results.push_back(ParseExecution(e));
    return page;
  });
}

Result<Execution> KestraClient::GetExecution(const std::string& id) const {
  auto j = call_.GetJson(Api({"executions", id}));
  if (!j.ok()) return j.status();
  return call_.Parse<Execution>("GET /api/v1/" + tenant() + "/executions/" + id,
                                [&] { return ParseExecution(*j); });
}

Result<std::vector<LogEntry>> KestraClient::ExecutionLogs(const std::string& execution_id,
                                                          size_t max_entries) const {
  auto j = call_.GetJson(Api({"logs", execution_id}));
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<LogEntry>>("GET /api/v1/" + tenant() + "/logs/" + execution_id, [&] {
    if (!j->is_array()) throw ResponseShapeError("expected an array of log entries");
    std::vector<LogEntry> out;
    for (const auto& e : *j) {
      if (out.size() >= max_entries) break;
      RequireObject(e, "a log entry");
      LogEntry l;
      l.timestamp_ms = RequiredIso(e, "timestamp");
      l.level = OptStringField(e, "level");
      l.task_id = OptStringField(e, "taskId");
      l.message = OptStringField(e, "message");
      out.push_back(std::move(l));
    }
    return out;
  });
}

Result<FlowPage> KestraClient::SearchFlows(int page, int size) const {
  std::string query = "page=" + std::to_string(std::max(1, page)) + "&size=" + std::to_string(std::max(1, size)) +
                      "&sort=namespace:asc&sort=id:asc";
  auto j = call_.GetJson(Api({"flows", "search"}), query);
  if (!j.ok()) return j.status();
  return call_.Parse<FlowPage>("GET /api/v1/" + tenant() + "/flows/search", [&] {
    RequireObject(*j, "a page of flows");
    FlowPage out;
    out.total = IntField(*j, "total");
    for (const auto& f : ArrayField(*j, "results")) {
      RequireObject(f, "a flow");
      if (f.contains("deleted") && f["deleted"].is_boolean() && f["deleted"].get<bool>()) continue;
      Flow flow;
      flow.namespace_ = StringField(f, "namespace");
      flow.id = StringField(f, "id");
      flow.revision = OptIntField(f, "revision");
      flow.updated_ms = OptUpdated(f);
      if (f.contains("disabled") && !f["disabled"].is_null()) flow.disabled = BoolField(f, "disabled");
      out.results.push_back(std::move(flow));
    }
    return out;
  });
}

Result<Flow> KestraClient::GetFlow(const std::string& ns, const std::string& id) const {
  auto j = call_.GetJson(Api({"flows", ns, id}), "source=true");
  if (!j.ok()) return j.status();
  return call_.Parse<Flow>("GET /api/v1/" + tenant() + "/flows/" + ns + "/" + id, [&] {
    RequireObject(*j, "a flow");
    Flow f;
    f.namespace_ = StringField(*j, "namespace");
    f.id = StringField(*j, "id");
    f.revision = OptIntField(*j, "revision");
    f.updated_ms = OptUpdated(*j);
    if (j->contains("disabled") && !(*j)["disabled"].is_null()) f.disabled = BoolField(*j, "disabled");
    f.source = OptStringField(*j, "source");
    return f;
  });
}

Result<std::vector<Flow>> KestraClient::FlowRevisions(const std::string& ns, const std::string& id) const {
  auto j = call_.GetJson(Api({"flows", ns, id, "revisions"}));
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<Flow>>("GET /api/v1/" + tenant() + "/flows/" + ns + "/" + id + "/revisions", [&] {
    if (!j->is_array()) throw ResponseShapeError("expected an array of flow revisions");
    std::vector<Flow> out;
    for (const auto& r : *j) {
      RequireObject(r, "a flow revision");
      Flow f;
      f.namespace_ = ns;
      f.id = id;
      f.revision = IntField(r, "revision");
      f.updated_ms = OptUpdated(r);
      f.source = OptStringField(r, "source");
      out.push_back(std::move(f));
    }
    std::stable_sort(out.begin(), out.end(), [](const Flow& a, const Flow& b) { return a.revision < b.revision; });
    return out;
  });
}

Result<std::vector<Trigger>> KestraClient::Triggers(int page, int size) const {
  auto j = call_.GetJson(Api({"triggers", "search"}),
                         "page=" + std::to_string(page) + "&size=" + std::to_string(size));
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<Trigger>>("GET /api/v1/" + tenant() + "/triggers/search", [&] {
    std::vector<Trigger> out;
    for (const auto& r : ArrayField(*j, "results")) {
      // Kestra answers {triggerContext: {...}, abstractTrigger: {...}} per row; the context holds ids.
      const Json& ctx = r.contains("triggerContext") ? ObjectField(r, "triggerContext") : r;
      Trigger t;
      t.namespace_ = StringField(ctx, "namespace");
      t.flow_id = StringField(ctx, "flowId");
      t.trigger_id = StringField(ctx, "triggerId");
      if (ctx.contains("disabled") && !ctx["disabled"].is_null()) t.disabled = BoolField(ctx, "disabled");
      if (ctx.contains("updatedDate") && ctx["updatedDate"].is_string())
        t.updated_ms = ParseIsoTimeMillis(ctx["updatedDate"].get<std::string>());
      out.push_back(std::move(t));
    }
    return out;
  });
}

Result<KvValue> KestraClient::GetKv(const std::string& ns, const std::string& key) const {
  auto j = call_.GetJson(Api({"namespaces", ns, "kv", key}));
  if (!j.ok()) return j.status();
  return call_.Parse<KvValue>("GET /api/v1/" + tenant() + "/namespaces/" + ns + "/kv/" + key, [&] {
    RequireObject(*j, "a KV value");
    if (!j->contains("value")) throw ResponseShapeError("field \"value\" is missing");
    return KvValue{StringField(*j, "type"), (*j)["value"]};
  });
}

}  // namespace dw::platforms::kestra
