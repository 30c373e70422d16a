// The Kafka Connect REST API: GET /, GET /connectors (?expand=status|info), GET
// /connectors/{name}, /connectors/{name}/status, /connectors/{name}/config. Errors are
// {"error_code": N, "message": "..."}; "rebalancing": true answers 409 as a worker does during a
// rebalance.
//
// Script: {"now", "rebalancing"?, "connectors": [{name, type, config?, states: [{at, connector,
// tasks: [state, ...], trace?}]}], "faults": [...]}; a connector's status is the last of its
// states whose `at` has passed (a connector is absent until its first state).
//
// With times: a task may be {state, trace?, worker_id?} instead of a state name (each failed task
// carries its own trace; a bare FAILED name gets the state's `trace`), and `config` may be a list
// [{at, values: {key: value}}] whose entries apply from their `at` on (later ones override keys),
// so a config edit at 09:40 is not visible at 09:39. The old forms keep their meaning.
#include <algorithm>

#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

struct SimTask {
  std::string state;
  std::string trace;  // "" : the state's trace (for a FAILED task)
  std::string worker_id = "connect-1:8083";
};

struct SimState {
  int64_t at = 0;
  std::string connector;
  std::vector<SimTask> tasks;
  std::string trace;
};

struct SimConfig {
  int64_t at = 0;
  Json values = Json::object();
};

struct SimConnector {
  std::string name, type;
  std::vector<SimConfig> config;  // in time order
  std::vector<SimState> states;
};

struct ConnectState {
  bool rebalancing = false;
  std::vector<SimConnector> connectors;
};

void ErrorCode(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(Json{{"error_code", status}, {"message", message}}.dump(), "application/json");
}

}  // namespace

void InstallKafkaConnect(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock) {
  auto st = std::make_shared<ConnectState>();
  st->rebalancing = script.value("rebalancing", false);
  for (const auto& c : script.value("connectors", Json::array())) {
    SimConnector sc;
    sc.name = c.at("name").get<std::string>();
    sc.type = c.value("type", "sink");
    const Json config = c.value("config", Json::object());
    if (config.is_array()) {
      for (const auto& e : config) {
        if (!e.is_object() || !e.contains("values") || !e["values"].is_object())
          throw std::invalid_argument("connectors[" + sc.name + "].config[]: needs at and values");
        sc.config.push_back({e.contains("at") ? ScriptTime(e["at"], "connectors[].config[].at") : 0, e["values"]});
      }
      std::stable_sort(sc.config.begin(), sc.config.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    } else {
      sc.config.push_back({0, config});
    }
    for (const auto& s : c.at("states")) {
      SimState x;
      x.at = s.contains("at") ? ScriptTime(s["at"], "connectors[].states[].at") : 0;
      x.connector = s.at("connector").get<std::string>();
      for (const auto& t : s.value("tasks", Json::array())) {
        SimTask task;
        if (t.is_string()) {
          task.state = t.get<std::string>();
        } else if (t.is_object() && t.contains("state")) {
          task.state = t["state"].get<std::string>();
          task.trace = t.value("trace", "");
          task.worker_id = t.value("worker_id", task.worker_id);
        } else {
          throw std::invalid_argument("connectors[" + sc.name + "].states[].tasks[]: a state name or {state, trace?}");
        }
        x.tasks.push_back(std::move(task));
      }
      x.trace = s.value("trace", "");
      sc.states.push_back(std::move(x));
    }
    st->connectors.push_back(std::move(sc));
  }
  auto current = [clock](const SimConnector& c) -> const SimState* {
    const SimState* cur = nullptr;
    for (const auto& s : c.states)
      if (clock->Visible(s.at)) cur = &s;
    return cur;
  };
  // The connector's config as of now (visible entries merged, later keys winning).
  auto config_now = [clock](const SimConnector& c) {
    Json out = Json::object();
    for (const auto& e : c.config)
      if (clock->Visible(e.at))
        for (const auto& [k, v] : e.values.items()) out[k] = v;
    return out;
  };
  auto status_json = [](const SimConnector& c, const SimState& s) {
    Json conn = {{"state", s.connector}, {"worker_id", "connect-1:8083"}};
    if (s.connector == "FAILED" && !s.trace.empty()) conn["trace"] = s.trace;
    Json tasks = Json::array();
    for (size_t i = 0; i < s.tasks.size(); ++i) {
      const SimTask& task = s.tasks[i];
      Json t = {{"id", i}, {"state", task.state}, {"worker_id", task.worker_id}};
      if (task.state == "FAILED")
        t["trace"] = !task.trace.empty() ? task.trace
                     : s.trace.empty()   ? "org.apache.kafka.connect.errors.ConnectException: task failed"
                                         : s.trace;
      tasks.push_back(t);
    }
    return Json{{"name", c.name}, {"connector", conn}, {"tasks", tasks}, {"type", c.type}};
  };
  auto find = [st, current](const std::string& name) -> std::pair<const SimConnector*, const SimState*> {
    for (const auto& c : st->connectors)
      if (c.name == name) {
        const SimState* s = current(c);
        if (s) return {&c, s};
      }
    return {nullptr, nullptr};
  };
  auto rebalancing = [st](httplib::Response& res) {
    if (!st->rebalancing) return false;
    ErrorCode(res, 409, "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)");
    return true;
  };

  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"version":"3.7.0","commit":"2ae524ed625438c5","kafka_cluster_id":"sim-cluster"})",
                    "application/json");
  });
  server.Get("/connectors", [st, current, status_json, rebalancing, config_now](const httplib::Request& req, httplib::Response& res) {
    if (rebalancing(res)) return;
    std::string expand = req.get_param_value("expand");
    if (expand.empty()) {
      Json names = Json::array();
      for (const auto& c : st->connectors)
        if (current(c)) names.push_back(c.name);
      res.set_content(names.dump(), "application/json");
      return;
    }
    Json out = Json::object();
    for (const auto& c : st->connectors) {
      const SimState* s = current(c);
      if (!s) continue;
      Json entry = Json::object();
      for (size_t i = 0; i < req.get_param_value_count("expand"); ++i) {
        std::string e = req.get_param_value("expand", i);
        if (e == "status") entry["status"] = status_json(c, *s);
        if (e == "info") entry["info"] = {{"name", c.name}, {"config", config_now(c)}, {"type", c.type}};
      }
      out[c.name] = entry;
    }
    res.set_content(out.dump(), "application/json");
  });
  server.Get(R"(/connectors/([^/]+)/status)", [find, status_json, rebalancing](const httplib::Request& req, httplib::Response& res) {
    if (rebalancing(res)) return;
    auto [c, s] = find(req.matches[1]);
    if (!c) return ErrorCode(res, 404, "No status found for connector " + std::string(req.matches[1]));
    res.set_content(status_json(*c, *s).dump(), "application/json");
  });
  server.Get(R"(/connectors/([^/]+)/config)", [find, rebalancing, config_now](const httplib::Request& req, httplib::Response& res) {
    if (rebalancing(res)) return;
    auto [c, s] = find(req.matches[1]);
    if (!c) return ErrorCode(res, 404, "Connector " + std::string(req.matches[1]) + " not found");
    res.set_content(config_now(*c).dump(), "application/json");
  });
  server.Get(R"(/connectors/([^/]+))", [find, rebalancing, config_now](const httplib::Request& req, httplib::Response& res) {
    if (rebalancing(res)) return;
    auto [c, s] = find(req.matches[1]);
    if (!c) return ErrorCode(res, 404, "Connector " + std::string(req.matches[1]) + " not found");
    Json tasks = Json::array();
    for (size_t i = 0; i < s->tasks.size(); ++i) tasks.push_back({{"connector", c->name}, {"task", i}});
    res.set_content(Json{{"name", c->name}, {"config", config_now(*c)}, {"tasks", tasks}, {"type", c->type}}.dump(),
                    "application/json");
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) ErrorCode(res, 404, "HTTP 404 Not Found");
  });
}

}  // namespace dw::sim
