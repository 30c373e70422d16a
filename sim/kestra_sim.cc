// The Kestra REST API (open source shape: tenant in the path, basic auth when the script sets
// "auth"): executions search (page from 1, size, sort, filters[field][OP]=value) answering
// {results, total}, execution detail with task runs, execution logs, flows with source and
// revisions, triggers search, and KV values. Errors are {"message": "..."} with 401/404/422.
//
// Script: {"now", "tenant": "main", "auth": {username, password} or {token}, "flows": [{namespace, id,
// revision, source, disabled?, revisions?: [{revision, at}], triggers?: [{id, disabled, at?}]}],
// "executions": [{id, namespace, flowId, flowRevision, state, start, end?, taskRuns?: [{id?,
// taskId, state?, outputs?}], logs?: [{at, level?, taskId?, message}]}], "kv": [{namespace, key,
// type, value}], "generate": {executions: N, namespace, flow, from, every_ms}, "faults": [...]}
//
// Everything can carry its time, so the platform at simulated T answers with what had happened by T:
//   flows[].revisions[]: {revision, at, source?}: the flow's revision (and its source) is the latest
//       one visible, and its `updated` (AbstractFlow's save time) is that entry's `at`;
//       `revision`/`source` of the flow hold before any (with no `updated`);
//   flows[].triggers[].changes: [{at, disabled}]: the trigger toggled at `at` (updatedDate moves);
//   kv[]: {namespace, key, type, value, at?}: a value from `at` on (absent before; of several
//       entries for one key the latest visible wins);
//   executions[]: originalId (another execution's id for a replay; default its own) and
//       histories: [{state, at}] (its state history, e.g. CREATED, RUNNING, RESTARTED, RUNNING,
//       SUCCESS: the current state is the latest visible entry).
#include <algorithm>
#include <optional>

#include "base/iso_time.h"
#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

struct SimLog {
  int64_t at = 0;
  std::string level, task_id, message;
};

struct SimTaskRun {
  std::string id, task_id, state;
  Json outputs;
};

struct SimExecution {
  std::string id, ns, flow, state;
  std::string original_id;  // another execution's id when this one is a replay of it
  std::vector<std::pair<std::string, int64_t>> histories;  // (state, at), in time order
  int64_t revision = 1, start = 0;
  std::optional<int64_t> end;
  std::vector<SimTaskRun> task_runs;
  std::vector<SimLog> logs;
  Json trigger;                      // the ExecutionTrigger as scripted ({id, type, variables}); null: none
  Json labels = Json::array();       // scripted labels, after system.correlationId
};

struct SimTrigger {
  std::string id;
  bool disabled = false;
  int64_t at = 0;
  std::vector<std::pair<int64_t, bool>> changes;  // (at, disabled), in time order
};

struct SimRevision {
  int64_t revision = 1, at = 0;
  std::string source;  // "" : the flow's source
};

struct SimFlow {
  std::string ns, id, source;
  int64_t revision = 1;
  bool disabled = false;
  std::vector<SimRevision> revisions;  // in time order
  std::vector<SimTrigger> triggers;
};

struct KestraState {
  std::string tenant = "main";
  std::string user, password, token;
  std::vector<SimFlow> flows;
  std::vector<SimExecution> executions;  // sorted by start
  Json kv = Json::array();
};

std::string Base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

void Message(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(Json{{"message", message}}.dump(), "application/json");
}

std::string ExecId(int i) {
  static const char* alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string s = "gen";
  uint64_t v = 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(i + 1);
  for (int k = 0; k < 19; ++k) {
    s.push_back(alphabet[v % 62]);
    v = v / 62 + static_cast<uint64_t>(i) * 31 + static_cast<uint64_t>(k);
  }
  return s;
}

KestraState ParseScript(const Json& s) {
  KestraState st;
  st.tenant = s.value("tenant", "main");
  if (s.contains("auth")) {  // basic (open source) or a bearer token (Enterprise)
    st.user = s["auth"].value("username", "");
    st.password = s["auth"].value("password", "");
    st.token = s["auth"].value("token", "");
  }
  for (const auto& f : s.value("flows", Json::array())) {
    SimFlow flow;
    flow.ns = f.at("namespace").get<std::string>();
    flow.id = f.at("id").get<std::string>();
    flow.revision = f.value("revision", int64_t{1});
    flow.source = f.value("source", "id: " + flow.id + "\nnamespace: " + flow.ns + "\n");
    flow.disabled = f.value("disabled", false);
    for (const auto& r : f.value("revisions", Json::array()))
      flow.revisions.push_back({r.at("revision").get<int64_t>(), ScriptTime(r.at("at"), "flows[].revisions[].at"),
                                r.value("source", "")});
    std::stable_sort(flow.revisions.begin(), flow.revisions.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    for (const auto& t : f.value("triggers", Json::array())) {
      SimTrigger trig{t.at("id").get<std::string>(), t.value("disabled", false),
                      t.contains("at") ? ScriptTime(t["at"], "flows[].triggers[].at") : 0, {}};
      for (const auto& c : t.value("changes", Json::array()))
        trig.changes.emplace_back(ScriptTime(c.at("at"), "flows[].triggers[].changes[].at"), c.at("disabled").get<bool>());
      std::stable_sort(trig.changes.begin(), trig.changes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      flow.triggers.push_back(std::move(trig));
    }
    st.flows.push_back(std::move(flow));
  }
  const Json execs = s.value("executions", Json::array());
  for (size_t i = 0; i < execs.size(); ++i) {
    const Json& e = execs[i];
    std::string w = "executions[" + std::to_string(i) + "]";
    SimExecution x;
    x.id = e.at("id").get<std::string>();
    x.ns = e.at("namespace").get<std::string>();
    x.flow = e.at("flowId").get<std::string>();
    x.revision = e.value("flowRevision", int64_t{1});
    x.state = e.value("state", "SUCCESS");
    x.start = ScriptTime(e.at("start"), w + ".start");
    if (e.contains("end")) x.end = ScriptTime(e["end"], w + ".end");
    x.original_id = e.value("originalId", x.id);
    if (e.contains("trigger")) {
      if (!e["trigger"].is_object()) throw std::invalid_argument(w + ".trigger: expected an object {id, type, variables}");
      x.trigger = e["trigger"];
    }
    if (e.contains("labels")) {
      if (!e["labels"].is_array()) throw std::invalid_argument(w + ".labels: expected a list of {key, value}");
      x.labels = e["labels"];
    }
    for (const auto& h : e.value("histories", Json::array()))
      x.histories.emplace_back(h.at("state").get<std::string>(), ScriptTime(h.at("at"), w + ".histories[].at"));
    std::stable_sort(x.histories.begin(), x.histories.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    int n = 0;
    for (const auto& t : e.value("taskRuns", Json::array()))
      x.task_runs.push_back({t.value("id", x.id.substr(0, 8) + "tr" + std::to_string(n++)),
                             t.at("taskId").get<std::string>(), t.value("state", x.state),
                             t.value("outputs", Json::object())});
    for (const auto& l : e.value("logs", Json::array()))
      x.logs.push_back({ScriptTime(l.at("at"), w + ".logs[].at"), l.value("level", "INFO"),
                        l.value("taskId", ""), l.at("message").get<std::string>()});
    st.executions.push_back(std::move(x));
  }
  if (s.contains("generate")) {
    const Json& g = s["generate"];
    int n = g.value("executions", 0);
    int64_t from = ScriptTime(g.at("from"), "generate.from");
    int64_t every = g.value("every_ms", int64_t{1000});
    for (int i = 0; i < n; ++i) {
      SimExecution x;
      x.id = ExecId(i);
      x.ns = g.value("namespace", "bench");
      x.flow = g.value("flow", "load");
      x.state = i % 50 == 49 ? "FAILED" : "SUCCESS";
      x.start = from + i * every;
      x.end = x.start + every / 2;
      x.task_runs.push_back({x.id.substr(0, 8) + "tr0", "work", x.state, Json::object()});
      st.executions.push_back(std::move(x));
    }
  }
  std::stable_sort(st.executions.begin(), st.executions.end(),
                   [](const auto& a, const auto& b) { return a.start < b.start; });
  st.kv = s.value("kv", Json::array());
  for (auto& kv : st.kv)
    if (kv.contains("at")) kv["at_ms"] = ScriptTime(kv["at"], "kv[].at");
  return st;
}

Json StateJson(const std::string& current, int64_t start, std::optional<int64_t> end) {
  Json histories = Json::array({{{"state", "CREATED"}, {"date", IsoMillis(start)}},
                                {{"state", "RUNNING"}, {"date", IsoMillis(start)}}});
  Json st = {{"current", end ? current : std::string("RUNNING")}, {"startDate", IsoMillis(start)}};
  if (end) {
    histories.push_back({{"state", current}, {"date", IsoMillis(*end)}});
    st["endDate"] = IsoMillis(*end);
    st["duration"] = static_cast<double>(*end - start) / 1000.0;
  } else {
    st["duration"] = nullptr;
  }
  st["histories"] = histories;
  return st;
}

}  // namespace

void InstallKestra(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock) {
  auto st = std::make_shared<KestraState>(ParseScript(script));
  std::string api = "/api/v1/" + st->tenant;

  auto authorized = [st](const httplib::Request& req, httplib::Response& res) {
    if (st->user.empty() && st->token.empty()) return true;
    std::string got = req.get_header_value("Authorization");
    if (!st->user.empty() && got == "Basic " + Base64(st->user + ":" + st->password)) return true;
    if (!st->token.empty() && got == "Bearer " + st->token) return true;
    res.set_header("WWW-Authenticate", "Basic realm=\"Kestra\"");
    Message(res, 401, "Unauthorized");
    return false;
  };
  // A scripted state history: the entries visible now, the current state the latest of them.
  auto scripted_state = [clock](const SimExecution& x, std::optional<int64_t> end) {
    Json histories = Json::array();
    std::string current = "CREATED";
    for (const auto& [state, at] : x.histories)
      if (clock->Visible(at)) {
        histories.push_back({{"state", state}, {"date", IsoMillis(at)}});
        current = state;
      }
    Json st = {{"current", current}, {"startDate", IsoMillis(x.start)}, {"histories", histories}};
    if (end) {
      st["endDate"] = IsoMillis(*end);
      st["duration"] = static_cast<double>(*end - x.start) / 1000.0;
    } else {
      st["duration"] = nullptr;
    }
    return st;
  };
  auto exec_json = [clock, scripted_state](const SimExecution& x, bool with_tasks) {
    std::optional<int64_t> end;
    if (x.end.has_value() && clock->Visible(x.end.value())) end = x.end.value();
    Json tasks = Json::array();
    if (with_tasks) {
      for (const auto& t : x.task_runs) {
        Json s = StateJson(t.state, x.start, end);
        tasks.push_back({{"id", t.id}, {"executionId", x.id}, {"namespace", x.ns}, {"flowId", x.flow},
                         {"taskId", t.task_id}, {"attempts", Json::array({{{"state", s}}})},
                         {"outputs", end ? t.outputs : Json::object()}, {"state", s}});
      }
    }
    Json labels = Json::array({{{"key", "system.correlationId"}, {"value", x.id}}});
    for (const auto& l : x.labels) labels.push_back(l);
    Json out{{"id", x.id}, {"namespace", x.ns}, {"flowId", x.flow}, {"flowRevision", x.revision},
                {"taskRunList", tasks},
                {"labels", labels},
                {"state", x.histories.empty() ? StateJson(x.state, x.start, end) : scripted_state(x, end)},
                {"originalId", x.original_id}, {"deleted", false},
                {"metadata", {{"attemptNumber", 1}, {"originalCreatedDate", IsoMillis(x.start)}}},
                {"scheduleDate", IsoMillis(x.start)}};
    if (!x.trigger.is_null()) out["trigger"] = x.trigger;
    return out;
  };

  server.Get(api + "/executions/search", [st, clock, authorized, exec_json](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    int page = 1, size = 10;
    try {
      if (req.has_param("page")) page = std::stoi(req.get_param_value("page"));
      if (req.has_param("size")) size = std::stoi(req.get_param_value("size"));
    } catch (const std::exception&) {
      Message(res, 400, "Invalid page or size");
      return;
    }
    if (page < 1 || size < 1 || size > 10000) {
      Message(res, 422, "Invalid page or size: page must be >= 1 and size between 1 and 10000");
      return;
    }
    std::string ns = req.get_param_value("filters[namespace][EQUALS]");
    std::string flow = req.get_param_value("filters[flowId][EQUALS]");
    std::optional<int64_t> from;
    if (req.has_param("filters[startDate][GTE]")) {
      from = ParseIsoTimeMillis(req.get_param_value("filters[startDate][GTE]"));
      if (!from) {
        Message(res, 422, "Invalid filter value for startDate: " + req.get_param_value("filters[startDate][GTE]"));
        return;
      }
    }
    bool desc = req.get_param_value("sort").find(":desc") != std::string::npos;
    std::vector<const SimExecution*> hits;
    for (const auto& x : st->executions) {
      if (!clock->Visible(x.start)) continue;
      if (!ns.empty() && x.ns != ns) continue;
      if (!flow.empty() && x.flow != flow) continue;
      if (from && x.start < *from) continue;
      hits.push_back(&x);
    }
    if (desc) std::reverse(hits.begin(), hits.end());
    Json results = Json::array();
    size_t first = static_cast<size_t>(page - 1) * static_cast<size_t>(size);
    for (size_t i = first; i < hits.size() && i < first + static_cast<size_t>(size); ++i)
      results.push_back(exec_json(*hits[i], true));
    res.set_content(Json{{"results", results}, {"total", hits.size()}}.dump(), "application/json");
  });
  server.Get(api + R"(/executions/([^/]+))", [st, clock, authorized, exec_json](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    std::string id = req.matches[1];
    for (const auto& x : st->executions)
      if (x.id == id && clock->Visible(x.start)) {
        res.set_content(exec_json(x, true).dump(), "application/json");
        return;
      }
    Message(res, 404, "Unable to find execution " + id);
  });
  server.Get(api + R"(/logs/([^/]+))", [st, clock, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    std::string id = req.matches[1];
    for (const auto& x : st->executions) {
      if (x.id != id || !clock->Visible(x.start)) continue;
      Json out = Json::array();
      for (const auto& l : x.logs)
        if (clock->Visible(l.at))
          out.push_back({{"namespace", x.ns}, {"flowId", x.flow}, {"taskId", l.task_id}, {"executionId", x.id},
                         {"taskRunId", nullptr}, {"attemptNumber", 0}, {"triggerId", nullptr},
                         {"timestamp", IsoMillis(l.at)}, {"level", l.level}, {"thread", "WorkerThread"},
                         {"message", l.message}});
      res.set_content(out.dump(), "application/json");
      return;
    }
    Message(res, 404, "Unable to find execution " + id);
  });
  auto find_flow = [st](const std::string& ns, const std::string& id) -> const SimFlow* {
    for (const auto& f : st->flows)
      if (f.ns == ns && f.id == id) return &f;
    return nullptr;
  };
  // The flow's revision, source and `updated` (when that revision was saved, if a dated entry
  // says) as of now: the latest visible revision entry.
  struct RevisionNow {
    int64_t revision;
    std::string source;
    std::optional<int64_t> updated;
  };
  auto revision_now = [clock](const SimFlow& f) -> RevisionNow {
    const SimRevision* latest = nullptr;
    bool all_visible = true;
    for (const auto& r : f.revisions) {
      if (clock->Visible(r.at)) latest = &r;
      else all_visible = false;
    }
    // With every dated revision in the past, the flow's own `revision` and `source` are the
    // current ones (the old meaning: `revisions` is its history), unless a later dated entry says more.
    if (all_visible && (!latest || f.revision >= latest->revision))
      return {f.revision, f.source,
              latest && latest->revision == f.revision ? std::optional<int64_t>(latest->at) : std::nullopt};
    if (latest) return {latest->revision, latest->source.empty() ? f.source : latest->source, latest->at};
    // Every dated revision is still to come: the flow as it was before the first of them.
    return {std::max<int64_t>(1, f.revisions.front().revision - 1), f.source, std::nullopt};
  };
  server.Get(api + "/flows/search", [st, authorized, revision_now](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    int size = 10, page = 1;
    try {
      if (req.has_param("size")) size = std::stoi(req.get_param_value("size"));
      if (req.has_param("page")) page = std::stoi(req.get_param_value("page"));
    } catch (const std::exception&) {
      Message(res, 400, "Invalid page or size");
      return;
    }
    if (size < 1 || page < 1) {
      Message(res, 400, "page and size must be at least 1");
      return;
    }
    Json results = Json::array();
    size_t first = static_cast<size_t>(page - 1) * static_cast<size_t>(size);
    for (size_t i = first; i < st->flows.size() && results.size() < static_cast<size_t>(size); ++i) {
      const auto& f = st->flows[i];
      const RevisionNow now = revision_now(f);
      Json flow = {{"id", f.id}, {"namespace", f.ns}, {"revision", now.revision}, {"disabled", f.disabled},
                   {"deleted", false}};
      if (now.updated) flow["updated"] = IsoMillis(*now.updated);
      results.push_back(std::move(flow));
    }
    res.set_content(Json{{"results", results}, {"total", st->flows.size()}}.dump(), "application/json");
  });
  server.Get(api + R"(/flows/([^/]+)/([^/]+))", [find_flow, authorized, revision_now](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const SimFlow* f = find_flow(std::string(req.matches[1]), std::string(req.matches[2]));
    if (!f) {
      Message(res, 404, "Unable to find flow " + std::string(req.matches[1]) + "." + std::string(req.matches[2]));
      return;
    }
    const RevisionNow now = revision_now(*f);
    Json body = {{"id", f->id}, {"namespace", f->ns}, {"revision", now.revision}, {"disabled", f->disabled},
                 {"deleted", false}, {"tasks", Json::array()}};
    if (now.updated) body["updated"] = IsoMillis(*now.updated);
    if (req.get_param_value("source") == "true") body["source"] = now.source;
    res.set_content(body.dump(), "application/json");
  });
  // Every revision Kestra keeps, oldest first, each a FlowWithSource (listFlowRevisions): the
  // dated entries visible now, and the current revision whether or not an entry dates it.
  server.Get(api + R"(/flows/([^/]+)/([^/]+)/revisions)", [find_flow, clock, authorized, revision_now](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const SimFlow* f = find_flow(std::string(req.matches[1]), std::string(req.matches[2]));
    if (!f) {
      Message(res, 404, "Unable to find flow " + std::string(req.matches[1]) + "." + std::string(req.matches[2]));
      return;
    }
    const RevisionNow now = revision_now(*f);
    Json out = Json::array();
    bool current_listed = false;
    for (const auto& r : f->revisions)
      if (clock->Visible(r.at) && r.revision <= now.revision) {
        current_listed |= r.revision == now.revision;
        out.push_back({{"id", f->id}, {"namespace", f->ns}, {"revision", r.revision},
                       {"source", r.source.empty() ? f->source : r.source}, {"updated", IsoMillis(r.at)}});
      }
    if (!current_listed) {
      Json current = {{"id", f->id}, {"namespace", f->ns}, {"revision", now.revision}, {"source", now.source}};
      if (now.updated) current["updated"] = IsoMillis(*now.updated);
      out.push_back(std::move(current));
    }
    std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) { return a["revision"] < b["revision"]; });
    res.set_content(out.dump(), "application/json");
  });
  server.Get(api + "/triggers/search", [st, clock, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    Json results = Json::array();
    for (const auto& f : st->flows)
      for (const auto& t : f.triggers) {
        // The trigger as of now: its latest visible toggle, else its scripted state.
        bool disabled = t.disabled;
        int64_t updated = t.at;
        for (const auto& [at, d] : t.changes)
          if (clock->Visible(at)) {
            disabled = d;
            updated = at;
          }
        results.push_back({{"triggerContext", {{"tenantId", st->tenant}, {"namespace", f.ns}, {"flowId", f.id},
                                               {"triggerId", t.id}, {"disabled", disabled},
                                               {"updatedDate", updated ? Json(IsoMillis(updated)) : Json(nullptr)}}},
                           {"abstractTrigger", {{"id", t.id}, {"disabled", disabled}}}});
      }
    res.set_content(Json{{"results", results}, {"total", results.size()}}.dump(), "application/json");
  });
  server.Get(api + R"(/namespaces/([^/]+)/kv/([^/]+))", [st, clock, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    // The latest value written by now (an entry without `at` holds from the start).
    const Json* found = nullptr;
    int64_t found_at = INT64_MIN;
    for (const auto& kv : st->kv)
      if (kv.value("namespace", "") == std::string(req.matches[1]) && kv.value("key", "") == std::string(req.matches[2])) {
        int64_t at = kv.value("at_ms", INT64_MIN);
        if (at != INT64_MIN && !clock->Visible(at)) continue;
        if (!found || at >= found_at) {
          found = &kv;
          found_at = at;
        }
      }
    if (found) {
      Json body = {{"type", found->value("type", "STRING")}, {"value", found->value("value", Json())}};
      res.set_content(body.dump(), "application/json");
      return;
    }
    Message(res, 404, "No value found for key '" + std::string(req.matches[2]) + "' in namespace '" +
                          std::string(req.matches[1]) + "'");
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) Message(res, 404, "Page Not Found: " + req.path);
  });
}

}  // namespace dw::sim
