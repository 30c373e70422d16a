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
#include <algorithm>

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
  int64_t revision = 1, start = 0;
  std::optional<int64_t> end;
  std::vector<SimTaskRun> task_runs;
  std::vector<SimLog> logs;
};

struct SimTrigger {
  std::string id;
  bool disabled = false;
  int64_t at = 0;
};

struct SimFlow {
  std::string ns, id, source;
  int64_t revision = 1;
  bool disabled = false;
  std::vector<std::pair<int64_t, int64_t>> revisions;  // (revision, at)
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
      flow.revisions.emplace_back(r.at("revision").get<int64_t>(), ScriptTime(r.at("at"), "flows[].revisions[].at"));
    for (const auto& t : f.value("triggers", Json::array()))
      flow.triggers.push_back({t.at("id").get<std::string>(), t.value("disabled", false),
                               t.contains("at") ? ScriptTime(t["at"], "flows[].triggers[].at") : 0});
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
  auto exec_json = [clock](const SimExecution& x, bool with_tasks) {
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
    return Json{{"id", x.id}, {"namespace", x.ns}, {"flowId", x.flow}, {"flowRevision", x.revision},
                {"taskRunList", tasks},
                {"labels", Json::array({{{"key", "system.correlationId"}, {"value", x.id}}})},
                {"state", StateJson(x.state, x.start, end)}, {"originalId", x.id}, {"deleted", false},
                {"metadata", {{"attemptNumber", 1}, {"originalCreatedDate", IsoMillis(x.start)}}},
                {"scheduleDate", IsoMillis(x.start)}};
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
  server.Get(api + "/flows/search", [st, authorized](const httplib::Request& req, httplib::Response& res) {
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
      results.push_back({{"id", f.id}, {"namespace", f.ns}, {"revision", f.revision}, {"disabled", f.disabled},
                         {"deleted", false}});
    }
    res.set_content(Json{{"results", results}, {"total", st->flows.size()}}.dump(), "application/json");
  });
  server.Get(api + R"(/flows/([^/]+)/([^/]+))", [find_flow, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const SimFlow* f = find_flow(std::string(req.matches[1]), std::string(req.matches[2]));
    if (!f) {
      Message(res, 404, "Unable to find flow " + std::string(req.matches[1]) + "." + std::string(req.matches[2]));
      return;
    }
    Json body = {{"id", f->id}, {"namespace", f->ns}, {"revision", f->revision}, {"disabled", f->disabled},
                 {"deleted", false}, {"tasks", Json::array()}};
    if (req.get_param_value("source") == "true") body["source"] = f->source;
    res.set_content(body.dump(), "application/json");
  });
  server.Get(api + R"(/flows/([^/]+)/([^/]+)/revisions)", [find_flow, clock, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const SimFlow* f = find_flow(std::string(req.matches[1]), std::string(req.matches[2]));
    if (!f) {
      Message(res, 404, "Unable to find flow " + std::string(req.matches[1]) + "." + std::string(req.matches[2]));
      return;
    }
    Json out = Json::array();
    for (const auto& [rev, at] : f->revisions)
      if (clock->Visible(at)) out.push_back({{"id", f->id}, {"namespace", f->ns}, {"revision", rev}});
    if (out.empty()) out.push_back({{"id", f->id}, {"namespace", f->ns}, {"revision", f->revision}});
    res.set_content(out.dump(), "application/json");
  });
  server.Get(api + "/triggers/search", [st, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    Json results = Json::array();
    for (const auto& f : st->flows)
      for (const auto& t : f.triggers)
        results.push_back({{"triggerContext", {{"tenantId", st->tenant}, {"namespace", f.ns}, {"flowId", f.id},
                                               {"triggerId", t.id}, {"disabled", t.disabled},
                                               {"updatedDate", t.at ? Json(IsoMillis(t.at)) : Json(nullptr)}}},
                           {"abstractTrigger", {{"id", t.id}, {"disabled", t.disabled}}}});
    res.set_content(Json{{"results", results}, {"total", results.size()}}.dump(), "application/json");
  });
  server.Get(api + R"(/namespaces/([^/]+)/kv/([^/]+))", [st, authorized](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    for (const auto& kv : st->kv)
      if (kv.value("namespace", "") == std::string(req.matches[1]) && kv.value("key", "") == std::string(req.matches[2])) {
        res.set_content(Json{{"type", kv.value("type", "STRING")}, {"value", kv.value("value", Json())}}.dump(),
                        "application/json");
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
