// The Flink JobManager REST API (v1), as Flink 1.17-2.x answers it: jobs overview, job details,
// checkpoint statistics with latest.restored, exceptions history, job config (its wire shape),
// JobManager configuration, and JobManager log files served as plain text. Errors are
// {"errors": [...]} with the status Flink uses.
//
// Script: {"now", "jobs": [{jid, name, state, start_time, end_time?, vertices?: [{id, name,
// parallelism}], restored?: {id, at, is_savepoint, external_path}, checkpoints?: {completed,
// failed}, config?: {key: value}, exceptions?: [{at, name, stacktrace, task?}]}],
// "jobmanager_config": {key: value}, "logs": [{name, lines: [{at, level?, logger?, message}],
// filler_bytes?}], "generate": {"jobs": N, "from": T}, "faults": [...]}
//
// Everything a job reports can carry its time, so the job's story unfolds as the clock moves:
//   "states": [{at, state}]              the state from `at` on (RUNNING -> RESTARTING -> RUNNING);
//   "restores": [{id, at, is_savepoint?, external_path?}]   several restores (a failover after a
//                                        TaskManager loss restores the latest checkpoint);
//   "checkpoints": [{at, completed, failed}]   the counts from `at` on;
//   "config": [{at, values: {key: value}}]     keys set from `at` on (later entries override).
// `last-modification` is the time of the latest visible state change, restore or end. The old
// single-valued keys keep their meaning (a `restored` is one more restore; `checkpoints` and
// `config` objects hold from the job's start).
#include <algorithm>
#include <sstream>

#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

struct SimVertex {
  std::string id, name;
  int64_t parallelism = 1;
};

struct SimException {
  int64_t at = 0;
  std::string name, stacktrace, task;
};

struct SimCheckpointCounts {
  int64_t at = 0;
  int64_t completed = 0, failed = 0;
};

struct SimConfigAt {
  int64_t at = 0;
  std::vector<std::pair<std::string, std::string>> values;
};

struct SimJob {
  std::string jid, name, state = "RUNNING";
  int64_t start = 0;
  std::optional<int64_t> end;
  std::vector<SimVertex> vertices;
  std::vector<std::pair<int64_t, std::string>> states;  // (at, state), in time order
  std::vector<Json> restores;  // {id, restore_timestamp, is_savepoint, external_path}, in time order
  std::vector<SimCheckpointCounts> checkpoints;  // in time order
  std::vector<SimConfigAt> config;               // in time order
  std::vector<SimException> exceptions;
};

struct SimLogLine {
  int64_t at = 0;
  std::string text;  // the whole rendered line, with '\n'
};

struct SimLog {
  std::string name;
  std::vector<SimLogLine> lines;
  size_t filler_bytes = 0;
};

struct FlinkState {
  std::vector<SimJob> jobs;
  std::vector<std::pair<std::string, std::string>> jm_config;
  std::vector<SimLog> logs;
};

const std::string kFiller =
    "2026-01-01 00:00:00,000 INFO  org.apache.flink.runtime.resourcemanager.slotmanager."
    "FineGrainedSlotManager [] - Received resource requirements from job (filler line).\n";

std::string Log4jTime(int64_t ms) {
  std::string iso = IsoMillis(ms);  // 2026-11-24T14:02:00.000Z
  return iso.substr(0, 10) + " " + iso.substr(11, 8) + "," + iso.substr(20, 3);
}

std::string Hex32(uint64_t a, uint64_t b) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

void Errors(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(Json{{"errors", {message}}}.dump(), "application/json; charset=UTF-8");
}

std::vector<std::pair<std::string, std::string>> ConfigPairs(const Json& j, const std::string& where) {
  std::vector<std::pair<std::string, std::string>> out;
  if (j.is_null()) return out;
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object of strings");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) throw std::invalid_argument(where + "." + k + ": expected a string");
    out.emplace_back(k, v.get<std::string>());
  }
  return out;
}

FlinkState ParseScript(const Json& s) {
  FlinkState st;
  const Json jobs = s.value("jobs", Json::array());
  if (!jobs.is_array()) throw std::invalid_argument("jobs: expected an array");
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Json& j = jobs[i];
    std::string w = "jobs[" + std::to_string(i) + "]";
    if (!j.is_object() || !j.contains("jid") || !j.contains("name"))
      throw std::invalid_argument(w + ": needs jid and name");
    SimJob job;
    job.jid = j["jid"].get<std::string>();
    job.name = j["name"].get<std::string>();
    job.state = j.value("state", "RUNNING");
    job.start = ScriptTime(j.at("start_time"), w + ".start_time");
    if (j.contains("end_time")) job.end = ScriptTime(j["end_time"], w + ".end_time");
    for (const auto& v : j.value("vertices", Json::array()))
      job.vertices.push_back({v.at("id").get<std::string>(), v.at("name").get<std::string>(),
                              v.value("parallelism", int64_t{1})});
    auto restore = [&](const Json& r, const std::string& where) {
      if (!r.is_object() || !r.contains("id") || !r.contains("at"))
        throw std::invalid_argument(where + ": needs id and at");
      job.restores.push_back(Json{{"id", r.at("id").get<int64_t>()},
                                  {"restore_timestamp", ScriptTime(r.at("at"), where + ".at")},
                                  {"is_savepoint", r.value("is_savepoint", true)},
                                  {"external_path", r.value("external_path", "<checkpoint-not-externally-addressable>")}});
    };
    if (j.contains("restored")) restore(j["restored"], w + ".restored");
    const Json restores = j.value("restores", Json::array());
    for (size_t k = 0; k < restores.size(); ++k) restore(restores[k], w + ".restores[" + std::to_string(k) + "]");
    std::sort(job.restores.begin(), job.restores.end(), [](const Json& a, const Json& b) {
      return a["restore_timestamp"].get<int64_t>() < b["restore_timestamp"].get<int64_t>();
    });
    const Json states = j.value("states", Json::array());
    for (size_t k = 0; k < states.size(); ++k) {
      std::string where = w + ".states[" + std::to_string(k) + "]";
      if (!states[k].is_object() || !states[k].contains("state") || !states[k]["state"].is_string())
        throw std::invalid_argument(where + ": needs at and state");
      job.states.emplace_back(ScriptTime(states[k].at("at"), where + ".at"), states[k]["state"].get<std::string>());
    }
    std::stable_sort(job.states.begin(), job.states.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (j.contains("checkpoints")) {
      const Json& c = j["checkpoints"];
      if (c.is_array()) {
        for (size_t k = 0; k < c.size(); ++k)
          job.checkpoints.push_back({ScriptTime(c[k].at("at"), w + ".checkpoints[" + std::to_string(k) + "].at"),
                                     c[k].value("completed", int64_t{0}), c[k].value("failed", int64_t{0})});
        std::stable_sort(job.checkpoints.begin(), job.checkpoints.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
      } else {
        job.checkpoints.push_back({job.start, c.value("completed", int64_t{0}), c.value("failed", int64_t{0})});
      }
    }
    if (j.contains("config") && j["config"].is_array()) {
      const Json& c = j["config"];
      for (size_t k = 0; k < c.size(); ++k) {
        std::string where = w + ".config[" + std::to_string(k) + "]";
        job.config.push_back({ScriptTime(c[k].at("at"), where + ".at"), ConfigPairs(c[k].value("values", Json()), where + ".values")});
      }
      std::stable_sort(job.config.begin(), job.config.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    } else {
      job.config.push_back({job.start, ConfigPairs(j.value("config", Json()), w + ".config")});
    }
    for (const auto& e : j.value("exceptions", Json::array()))
      job.exceptions.push_back({ScriptTime(e.at("at"), w + ".exceptions.at"),
                                e.value("name", "java.lang.RuntimeException"),
                                e.value("stacktrace", e.value("name", "java.lang.RuntimeException")),
                                e.value("task", "")});
    st.jobs.push_back(std::move(job));
  }
  if (s.contains("generate")) {  // many plain running jobs, for benchmarks
    const Json& g = s["generate"];
    int n = g.value("jobs", 0);
    int64_t from = ScriptTime(g.at("from"), "generate.from");
    for (int i = 0; i < n; ++i) {
      SimJob job;
      job.jid = Hex32(0x5151000000000000ULL + static_cast<uint64_t>(i), 0xabcdefULL);
      job.name = "gen-job-" + std::to_string(i);
      job.start = from + i;
      job.vertices.push_back({Hex32(static_cast<uint64_t>(i), 1), "Source -> Sink", 2});
      job.checkpoints.push_back({job.start, 10, 0});
      st.jobs.push_back(std::move(job));
    }
  }
  st.jm_config = ConfigPairs(s.value("jobmanager_config", Json()), "jobmanager_config");
  for (const auto& l : s.value("logs", Json::array())) {
    SimLog log;
    log.name = l.at("name").get<std::string>();
    log.filler_bytes = l.value("filler_bytes", size_t{0});
    log.filler_bytes -= log.filler_bytes % kFiller.size();  // whole filler lines only
    for (const auto& line : l.value("lines", Json::array())) {
      int64_t at = ScriptTime(line.at("at"), "logs[].lines[].at");
      std::string text = Log4jTime(at) + " " + line.value("level", "INFO") + "  " +
                         line.value("logger", "org.apache.flink.runtime.checkpoint.CheckpointCoordinator") +
                         " [] - " + line.at("message").get<std::string>() + "\n";
      log.lines.push_back({at, std::move(text)});
    }
    st.logs.push_back(std::move(log));
  }
  return st;
}


}  // namespace

void InstallFlink(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock) {
  auto st = std::make_shared<FlinkState>(ParseScript(script));

  auto visible_job = [st, clock](const std::string& jid) -> const SimJob* {
    for (const auto& j : st->jobs)
      if (j.jid == jid && clock->Visible(j.start)) return &j;
    return nullptr;
  };
  // The state at the clock's now: the job's end (its final `state`) once visible, else the latest
  // visible `states` entry, else RUNNING for a job that ends later, else its `state`.
  auto job_state = [clock](const SimJob& j) {
    if (j.end && clock->Visible(*j.end)) return j.state == "RUNNING" ? std::string("FINISHED") : j.state;
    std::string state = j.end ? std::string("RUNNING") : j.state;
    for (const auto& [at, st] : j.states)
      if (clock->Visible(at)) state = st;
    return state;
  };
  auto summary = [clock, job_state](const SimJob& j) {
    bool ended = j.end && clock->Visible(*j.end);
    int64_t now = clock->now().value_or(j.start);
    // Flink moves last-modification whenever the job's status changes (a restart, a restore).
    int64_t modified = j.start;
    for (const auto& [at, st] : j.states)
      if (clock->Visible(at)) modified = std::max(modified, at);
    for (const auto& r : j.restores)
      if (clock->Visible(r["restore_timestamp"].get<int64_t>())) modified = std::max(modified, r["restore_timestamp"].get<int64_t>());
    if (ended) modified = std::max(modified, *j.end);
    Json tasks = {{"total", j.vertices.size()}, {"created", 0}, {"scheduled", 0}, {"deploying", 0},
                  {"running", ended ? 0 : j.vertices.size()}, {"finished", ended ? j.vertices.size() : 0},
                  {"canceling", 0}, {"canceled", 0}, {"failed", 0}, {"reconciling", 0}, {"initializing", 0}};
    return Json{{"jid", j.jid}, {"name", j.name}, {"state", job_state(j)}, {"start-time", j.start},
                {"end-time", ended ? *j.end : -1}, {"duration", (ended ? *j.end : now) - j.start},
                {"last-modification", modified}, {"tasks", tasks}};
  };
  // Flink answers an unknown or malformed job id with these.
  auto job_or_error = [visible_job](const httplib::Request& req, httplib::Response& res) -> const SimJob* {
    std::string jid = req.matches[1];
    bool hex = jid.size() == 32 && std::all_of(jid.begin(), jid.end(), [](char c) {
                 return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
               });
    if (!hex) {
      Errors(res, 400, "Bad request received: Cannot parse path parameter jobid: " + jid);
      return nullptr;
    }
    const SimJob* j = visible_job(jid);
    if (!j) Errors(res, 404, "org.apache.flink.runtime.rest.NotFoundException: Job " + jid + " not found");
    return j;
  };

  server.Get("/overview", [st, clock](const httplib::Request&, httplib::Response& res) {
    int running = 0;
    for (const auto& j : st->jobs) running += clock->Visible(j.start) ? 1 : 0;
    res.set_content(Json{{"taskmanagers", 1}, {"slots-total", 8}, {"slots-available", 0},
                         {"jobs-running", running}, {"jobs-finished", 0}, {"jobs-cancelled", 0},
                         {"jobs-failed", 0}, {"flink-version", "2.2.0"}, {"flink-commit", "sim"}}
                        .dump(),
                    "application/json; charset=UTF-8");
  });
  server.Get("/jobs/overview", [st, clock, summary](const httplib::Request&, httplib::Response& res) {
    Json jobs = Json::array();
    for (const auto& j : st->jobs)
      if (clock->Visible(j.start)) jobs.push_back(summary(j));
    res.set_content(Json{{"jobs", jobs}}.dump(), "application/json; charset=UTF-8");
  });
  server.Get(R"(/jobs/([^/]+))", [job_or_error, summary, clock](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    Json d = summary(*j);
    d["isStoppable"] = false;
    d["job-type"] = "STREAMING";
    d["maxParallelism"] = -1;
    d["now"] = clock->now().value_or(j->start);
    d["timestamps"] = {{"RUNNING", j->start}, {"CREATED", j->start}, {"INITIALIZING", j->start}};
    d["status-counts"] = d["tasks"];
    Json vertices = Json::array();
    for (const auto& v : j->vertices)
      vertices.push_back({{"id", v.id}, {"name", v.name}, {"maxParallelism", 128},
                          {"parallelism", v.parallelism}, {"status", "RUNNING"},
                          {"start-time", j->start}, {"end-time", -1}, {"duration", 0},
                          {"tasks", {{"RUNNING", v.parallelism}}}, {"metrics", Json::object()}});
    d["vertices"] = vertices;
    d["plan"] = {{"jid", j->jid}, {"name", j->name}, {"type", "STREAMING"}, {"nodes", Json::array()}};
    res.set_content(d.dump(), "application/json; charset=UTF-8");
  });
  server.Get(R"(/jobs/([^/]+)/checkpoints)", [job_or_error, clock](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    // latest.restored is the latest restore visible; counts.restored how many there were.
    Json restored = nullptr;
    int64_t restores = 0;
    for (const auto& r : j->restores)
      if (clock->Visible(r["restore_timestamp"].get<int64_t>())) {
        restored = r;
        ++restores;
      }
    int64_t completed = 0, failed = 0;
    for (const auto& c : j->checkpoints)
      if (clock->Visible(c.at)) {
        completed = c.completed;
        failed = c.failed;
      }
    Json stats = {{"min", 0}, {"max", 0}, {"avg", 0}, {"p50", 0}, {"p90", 0}, {"p95", 0}, {"p99", 0}, {"p999", 0}};
    Json body = {
        {"counts", {{"restored", restores}, {"total", completed + failed},
                    {"in_progress", 0}, {"completed", completed}, {"failed", failed}}},
        {"summary", {{"checkpointed_size", stats}, {"state_size", stats}, {"end_to_end_duration", stats},
                     {"alignment_buffered", stats}, {"processed_data", stats}, {"persisted_data", stats}}},
        {"latest", {{"completed", nullptr}, {"savepoint", nullptr}, {"failed", nullptr}, {"restored", restored}}},
        {"history", Json::array()}};
    res.set_content(body.dump(), "application/json; charset=UTF-8");
  });
  server.Get(R"(/jobs/([^/]+)/checkpoints/config)", [job_or_error](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    Json body = {{"mode", "exactly_once"}, {"interval", 60000}, {"timeout", 600000}, {"min_pause", 0},
                 {"max_concurrent", 1}, {"externalization", {{"enabled", true}, {"delete_on_cancellation", false}}},
                 {"state_backend", "EmbeddedRocksDBStateBackend"}, {"checkpoint_storage", "FileSystemCheckpointStorage"},
                 {"unaligned_checkpoints", false}, {"tolerable_failed_checkpoints", 0},
                 {"aligned_checkpoint_timeout", 0}, {"checkpoints_after_tasks_finish", true},
                 {"state_changelog_enabled", false}, {"changelog_periodic_materialization_interval", 600000},
                 {"changelog_storage", "memory"}};
    res.set_content(body.dump(), "application/json; charset=UTF-8");
  });
  server.Get(R"(/jobs/([^/]+)/exceptions)", [job_or_error, clock](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    size_t max = 10;
    if (req.has_param("maxExceptions")) {
      try {
        max = std::stoul(req.get_param_value("maxExceptions"));
      } catch (const std::exception&) {
        Errors(res, 400, "Bad request received: Cannot parse query parameter maxExceptions");
        return;
      }
    }
    Json entries = Json::array();
    std::vector<SimException> seen;
    for (const auto& e : j->exceptions)
      if (clock->Visible(e.at)) seen.push_back(e);
    std::sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.at > b.at; });
    for (const auto& e : seen) {
      if (entries.size() >= max) break;
      entries.push_back({{"exceptionName", e.name}, {"stacktrace", e.stacktrace}, {"timestamp", e.at},
                         {"taskName", e.task.empty() ? Json(nullptr) : Json(e.task)},
                         {"endpoint", nullptr}, {"taskManagerId", nullptr}, {"failureLabels", Json::object()},
                         {"concurrentExceptions", Json::array()}});
    }
    Json body = {{"root-exception", seen.empty() ? Json(nullptr) : Json(seen.front().stacktrace)},
                 {"timestamp", seen.empty() ? Json(nullptr) : Json(seen.front().at)},
                 {"all-exceptions", Json::array()}, {"truncated", seen.size() > max},
                 {"exceptionHistory", {{"entries", entries}, {"truncated", seen.size() > max}}}};
    res.set_content(body.dump(), "application/json; charset=UTF-8");
  });
  // The job's configuration as of now: the entries visible, later ones overriding earlier keys.
  auto job_config = [clock](const SimJob& j) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& c : j.config) {
      if (!clock->Visible(c.at)) continue;
      for (const auto& kv : c.values) {
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == kv.first; });
        if (it == out.end()) out.push_back(kv);
        else it->second = kv.second;
      }
    }
    return out;
  };
  server.Get(R"(/jobs/([^/]+)/config)", [job_or_error, job_config](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    Json user = Json::object();
    for (const auto& [k, v] : job_config(*j)) user[k] = v;
    int64_t par = j->vertices.empty() ? 1 : j->vertices.front().parallelism;
    Json body = {{"jid", j->jid}, {"name", j->name},
                 {"execution-config", {{"execution-mode", "PIPELINED"}, {"restart-strategy", "Cluster level default restart strategy"},
                                       {"job-parallelism", par}, {"object-reuse-mode", false},
                                       {"user-config", user}}}};
    res.set_content(body.dump(), "application/json; charset=UTF-8");
  });
  auto config_body = [](const std::vector<std::pair<std::string, std::string>>& pairs) {
    Json out = Json::array();
    for (const auto& [k, v] : pairs) out.push_back({{"key", k}, {"value", v}});
    return out.dump();
  };
  server.Get(R"(/jobs/([^/]+)/jobmanager/config)", [job_or_error, st, config_body, job_config](const httplib::Request& req, httplib::Response& res) {
    const SimJob* j = job_or_error(req, res);
    if (!j) return;
    auto pairs = st->jm_config;
    for (const auto& kv : job_config(*j)) pairs.push_back(kv);
    res.set_content(config_body(pairs), "application/json; charset=UTF-8");
  });
  server.Get("/jobmanager/config", [st, config_body](const httplib::Request&, httplib::Response& res) {
    res.set_content(config_body(st->jm_config), "application/json; charset=UTF-8");
  });

  // A log's visible content: the filler, then the scripted lines that have happened.
  auto visible_lines = [clock](const SimLog& log) {
    std::vector<const SimLogLine*> out;
    for (const auto& l : log.lines)
      if (clock->Visible(l.at)) out.push_back(&l);
    return out;
  };
  auto log_size = [visible_lines](const SimLog& log) {
    size_t n = log.filler_bytes;
    for (const auto* l : visible_lines(log)) n += l->text.size();
    return n;
  };
  server.Get("/jobmanager/logs", [st, visible_lines, log_size](const httplib::Request&, httplib::Response& res) {
    Json logs = Json::array();
    for (const auto& log : st->logs) {
      auto lines = visible_lines(log);
      int64_t mtime = lines.empty() ? 0 : lines.back()->at;
      logs.push_back({{"name", log.name}, {"size", log_size(log)}, {"mtime", mtime}});
    }
    res.set_content(Json{{"logs", logs}}.dump(), "application/json; charset=UTF-8");
  });
  server.Get(R"(/jobmanager/logs/(.+))", [st, visible_lines, log_size](const httplib::Request& req, httplib::Response& res) {
    std::string name = req.matches[1];
    if (name.find("..") != std::string::npos || name.find('/') != std::string::npos) {
      Errors(res, 400, "Bad request received: illegal log file name " + name);
      return;
    }
    const SimLog* log = nullptr;
    for (const auto& l : st->logs)
      if (l.name == name) log = &l;
    if (!log) {
      Errors(res, 404, "Unable to load requested file /opt/flink/log/" + name + ".");
      return;
    }
    // The tail is built now; the filler is generated as it is sent, so a gigabyte log costs no memory.
    auto tail = std::make_shared<std::string>();
    for (const auto* l : visible_lines(*log)) *tail += l->text;
    size_t filler = log->filler_bytes;
    // An empty log is an empty 200 body; a content provider of length 0 would never finish the
    // response (the client waits and the server thread spins).
    if (filler + tail->size() == 0) {
      res.set_content("", "text/plain");
      return;
    }
    res.set_content_provider(
        filler + tail->size(), "text/plain",
        [filler, tail](size_t offset, size_t length, httplib::DataSink& sink) {
          size_t end = offset + std::min<size_t>(length, 256 * 1024);
          std::string chunk;
          chunk.reserve(end - offset);
          for (size_t pos = offset; pos < end;) {
            if (pos < filler) {
              size_t in = pos % kFiller.size();
              size_t n = std::min({kFiller.size() - in, filler - pos, end - pos});
              chunk.append(kFiller, in, n);
              pos += n;
            } else {
              size_t n = std::min(end - pos, tail->size() - (pos - filler));
              chunk.append(*tail, pos - filler, n);
              pos += n;
            }
          }
          return sink.write(chunk.data(), chunk.size());
        });
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) Errors(res, 404, "Not found: " + req.path);
  });
}

}  // namespace dw::sim
