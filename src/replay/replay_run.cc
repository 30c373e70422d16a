// Replay: the one simulated clock moved across the world's events, the `dw watch` jobs and the
// simulators, from the scenario's start to its end, at full speed.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "config/workspace.h"
#include "net/http_client.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/series_csv.h"
#include "replay/expectations.h"
#include "replay/notify_receivers.h"
#include "replay/product_timeline.h"
#include "replay/replay.h"
#include "replay/scratch_workspace.h"
#include "replay/simulated_warehouse.h"
#include "replay/simulator_process.h"
#include "replay/world_writes.h"

namespace dw::replay {
namespace {

namespace fs = std::filesystem;

std::string At(const Scenario& s, int line, const std::string& key, const std::string& message) {
  return s.file.string() + ":" + std::to_string(line) + ": " + key + ": " + message;
}

// dw-sim's name for a workspace platform type.
std::string SimPlatformOf(const std::string& type) { return type; }

// Checks what only the workspace can tell: the platforms and warehouses the scenario names.
Status CheckAgainstWorkspace(const Scenario& s, const config::Workspace& ws) {
  auto names = [](const auto& map) {
    std::string out;
    for (const auto& [k, v] : map) out += (out.empty() ? "" : ", ") + k;
    return out.empty() ? std::string("none") : out;
  };
  for (const auto& [name, script] : s.platforms) {
    if (!ws.platforms.count(name))
      return InvalidArgument(At(s, s.platform_lines.at(name), "platforms." + name,
                                "no platform '" + name + "' in the workspace (it has: " + names(ws.platforms) + ")"));
  }
  for (const auto& [name, script] : s.warehouses) {
    auto wh = ws.warehouses.find(name);
    if (wh == ws.warehouses.end())
      return InvalidArgument(At(s, s.warehouse_lines.at(name), "warehouses." + name,
                                "no warehouse '" + name + "' in the workspace (it has: " + names(ws.warehouses) + ")"));
    if (wh->second.type != "snowflake" && wh->second.type != "bigquery")
      return InvalidArgument(At(s, s.warehouse_lines.at(name), "warehouses." + name,
                                "warehouse '" + name + "' is " + wh->second.type +
                                    "; dw replay simulates snowflake and bigquery warehouses"));
  }
  // A warehouse reached over an API is a real system unless the scenario simulates it.
  for (const auto& [name, wh] : ws.warehouses)
    if ((wh.type == "snowflake" || wh.type == "bigquery") && !s.warehouses.count(name))
      return InvalidArgument(At(s, s.workspace_line, "workspace",
                                "warehouse '" + name + "' is " + wh.type + ": name its dw-sim script under warehouses: "
                                "(a replay never reaches a real system)"));
  auto warehouse = [&](const SqlStep& step, int line, const std::string& key) -> Status {
    auto wh = ws.warehouses.find(step.warehouse);
    if (wh == ws.warehouses.end())
      return InvalidArgument(At(s, line, key, "no warehouse '" + step.warehouse + "' in the workspace (it has: " +
                                                  names(ws.warehouses) + ")"));
    if (wh->second.type != "sqlite" && !s.warehouses.count(step.warehouse))
      return InvalidArgument(At(s, line, key, "warehouse '" + step.warehouse + "' is " + wh->second.type +
                                                  "; dw replay writes the world's rows into SQLite warehouses and "
                                                  "simulated Snowflake and BigQuery ones only"));
    return Status::Ok();
  };
  for (const auto& [channel, spec] : s.receivers)
    if (!ws.notify.contains(channel)) {
      std::string have;
      for (const auto& [key, value] : ws.notify.items())
        if (key != "link" && key != "routes") have += (have.empty() ? "" : ", ") + key;
      return InvalidArgument(At(s, spec.line, "receivers." + channel,
                                "no channel '" + channel + "' under the workspace's notify: (it has: " +
                                    (have.empty() ? std::string("none") : have) + ")"));
    }
  for (size_t i = 0; i < s.setup.size(); ++i)
    DW_RETURN_IF_ERROR(warehouse(s.setup[i].sql, s.setup[i].line, "setup[" + std::to_string(i) + "].warehouse"));
  for (size_t i = 0; i < s.events.size(); ++i)
    if (s.events[i].sql)
      DW_RETURN_IF_ERROR(warehouse(*s.events[i].sql, s.events[i].line, "events[" + std::to_string(i) + "].warehouse"));
  return Status::Ok();
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The world's row for an event: its own words, or what it does.
std::string Describe(const Event& e) {
  if (!e.says.empty()) return e.says;
  if (e.metric) return "metric " + e.metric->name + " records " + Json(e.metric->value).dump();
  if (e.person) return e.person->as + " does " + e.person->does + (e.person->proposal.empty() ? "" : " " + e.person->proposal);
  if (e.file) return "the workspace file " + e.file->path + " is replaced";
  if (e.sql) return "a write to warehouse " + e.sql->warehouse;
  return "run events posted to the OpenLineage intake";
}

class ScratchFolder {
 public:
  ScratchFolder(fs::path dir, bool keep) : dir_(std::move(dir)), keep_(keep) {}
  ~ScratchFolder() {
    std::error_code ec;
    if (!keep_) fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  bool keep_;
};

}  // namespace

Result<ReplayReport> Replay(const Scenario& s, const ReplayOptions& options) {
  const Clock& wall = RealClock();  // only to report how long the replay took
  TimePoint wall_start = wall.Now();
  ReplayReport report;
  report.scenario = s.name;

  auto original = config::LoadWorkspace(s.workspace);
  if (!original.ok())
    return InvalidArgument(At(s, s.workspace_line, "workspace", "the workspace does not load:\n" + original.ErrorText()));
  DW_RETURN_IF_ERROR(CheckAgainstWorkspace(s, *original.workspace));

  std::error_code ec;
  fs::path scratch_dir = options.scratch;
  if (scratch_dir.empty())
    scratch_dir = fs::temp_directory_path(ec) / ("dw-replay-" + s.name + "-" + std::to_string(::getpid()) + "-" +
                                                 std::to_string(ToUnixMillis(wall_start)));
  if (fs::exists(scratch_dir / "workspace", ec))
    return FailedPrecondition("the scratch folder " + scratch_dir.string() + " already holds a workspace; give an empty one");
  ScratchFolder scratch(scratch_dir, options.keep_scratch);

  // The simulators, one per platform the scenario names, each on a free port.
  std::vector<std::unique_ptr<SimulatorProcess>> sims;
  std::map<std::string, std::string> urls;
  for (const auto& [name, script] : s.platforms) {
    const auto& platform = original.workspace->platforms.at(name);
    auto sim = SimulatorProcess::Start(options.sim_binary, SimPlatformOf(platform.type), script);
    if (!sim.ok())
      return Status(sim.status().code(), At(s, s.platform_lines.at(name), "platforms." + name, sim.status().message()));
    urls[name] = (*sim)->url();
    sims.push_back(std::move(sim).value());
  }
  // The simulated warehouses, each with a key pair made for this replay.
  std::map<std::string, std::map<std::string, std::string>> warehouse_settings;
  for (const auto& [name, script] : s.warehouses) {
    auto wh = StartSimulatedWarehouse(options.sim_binary, original.workspace->warehouses.at(name), script, scratch.dir());
    if (!wh.ok())
      return Status(wh.status().code(), At(s, s.warehouse_lines.at(name), "warehouses." + name, wh.status().message()));
    warehouse_settings[name] = wh->settings;
    sims.push_back(std::move(wh->process));
  }
  // The notification receivers, one per channel the scenario names, each on a free port.
  std::string failed_receiver;
  auto receivers = NotifyReceivers::Start(options.sim_binary, s.receivers, scratch.dir() / "receivers", &failed_receiver);
  if (!receivers.ok())
    return Status(receivers.status().code(), At(s, s.receivers.at(failed_receiver).line, "receivers." + failed_receiver,
                                                receivers.status().message()));
  // A key for each person who decides in the story, declared in the copy (an agent named as a
  // decider gets none, and its decision is refused and recorded, as `dw approve` would refuse it).
  std::map<std::string, actions::IssuedKey> person_keys;
  std::map<std::string, std::string> declared;
  for (const Event& e : s.events) {
    if (!e.person || (e.person->does != "approve" && e.person->does != "deny") || person_keys.count(e.person->as)) continue;
    auto key = actions::NewPersonKey(e.person->as);
    if (!key.ok()) continue;
    declared[e.person->as] = actions::KeyFingerprint(key->public_key_pem);
    person_keys.emplace(e.person->as, std::move(*key));
  }
  auto copied = MakeScratchWorkspace(s.workspace, scratch.dir(), urls, (*receivers)->urls(), declared, warehouse_settings);
  if (!copied.ok()) return copied.status();
  auto loaded = config::LoadWorkspace(copied->dir);
  if (!loaded.ok()) return InvalidArgument(At(s, s.workspace_line, "workspace", "the scratch copy does not load:\n" + loaded.ErrorText()));
  const config::Workspace& ws = *loaded.workspace;
  for (const auto& name : copied->platforms_left_out)
    report.errors.push_back("platform " + name + " has no simulator in the scenario: left out of the replay");
  for (const auto& name : copied->channels_left_out)
    report.errors.push_back("notify channel " + name + " has no receiver in the scenario: left out of the replay");

  // Setup and history, before the clock starts.
  auto http = net::MakeCurlHttpClient();
  for (size_t i = 0; i < s.setup.size(); ++i) {
    Status st = RunWorldSql(ws, s.setup[i].sql, s.start, *http);
    if (!st.ok()) return InvalidArgument(At(s, s.setup[i].line, "setup[" + std::to_string(i) + "]", st.message()));
  }
  SimulatedClock clock(s.start);
  auto product = options.product(copied->dir, clock, person_keys);
  if (!product.ok()) return product.status();
  auto store = (*product)->State();
  if (!store.ok()) return store.status();
  for (size_t i = 0; i < s.history.size(); ++i) {
    std::string key = "history[" + std::to_string(i) + "].csv";
    auto rows = observe::metrics::ReadSeriesCsv(s.history[i].csv.string());
    if (!rows.ok()) return InvalidArgument(At(s, s.history[i].line, key, rows.status().message()));
    std::vector<observe::metrics::IncomingPoint> points;
    for (const auto& r : *rows) {
      if (r.ts_ms >= ToUnixMillis(s.start))
        return InvalidArgument(At(s, s.history[i].line, key, "a point at " + FormatRfc3339(FromUnixMillis(r.ts_ms)) +
                                                              " is not before clock.start; history is what was recorded before the story"));
      points.push_back({r.ts_ms, r.value});
    }
    auto recorded = observe::metrics::RecordMetricPoints(**store, s.history[i].metric, points);
    if (!recorded.ok()) return InvalidArgument(At(s, s.history[i].line, key, recorded.status().message()));
  }

  auto tell_simulators = [&](TimePoint t) -> Status {
    for (const auto& sim : sims) DW_RETURN_IF_ERROR(sim->SetClock(*http, t));
    return (*receivers)->SetClock(*http, t);
  };
  DW_RETURN_IF_ERROR(tell_simulators(s.start));

  std::vector<std::string> job_log;
  // One job at a time: on the simulated clock running groups side by side buys nothing, and it
  // made the order of the jobs' log lines (and of the incidents passes after them) depend on
  // thread timing: 1 replay in 52 of the EV story logged two jobs of one moment the other way
  // round (bench/replay_repeat.sh).
  observe::watch::WatchOptions one_at_a_time;
  one_at_a_time.max_parallel = 1;
  observe::watch::WatchLoop loop(clock, one_at_a_time);
  DW_RETURN_IF_ERROR((*product)->AddWatchJobs(loop, [&job_log](std::string line) { job_log.push_back(std::move(line)); }));
  ProductTimeline conclusions(**product);

  std::vector<Verdict> action_failures;
  auto apply = [&](const Event& e) {
    report.rows.push_back({e.at, e.system, Describe(e), false});
    Status st = Status::Ok();
    if (e.sql) st = RunWorldSql(ws, *e.sql, e.at, *http);
    if (st.ok() && e.metric) {
      auto r = observe::metrics::RecordMetricPoints(**store, e.metric->name, {{ToUnixMillis(e.at), e.metric->value}});
      st = r.status();
    }
    if (st.ok() && e.file) {
      fs::path to = copied->dir / e.file->path;
      std::error_code fec;
      fs::create_directories(to.parent_path(), fec);
      fs::copy_file(e.file->from, to, fs::copy_options::overwrite_existing, fec);
      if (fec) st = Internal("cannot replace " + to.string() + ": " + fec.message());
    }
    if (st.ok() && !e.openlineage.empty()) st = (*product)->PostOpenLineage(ReadText(e.openlineage));
    if (st.ok() && e.person) {
      Status act = (*product)->PersonAction(*e.person, e.at);
      if (!act.ok())
        action_failures.push_back({"person " + e.person->as + " does " + e.person->does +
                                       (e.person->proposal.empty() ? "" : " " + e.person->proposal),
                                   e.line, false, "FAILED: the product could not carry out this action: " + act.message()});
    }
    if (!st.ok()) report.errors.push_back(At(s, e.line, "event at " + FormatRfc3339(e.at), st.message()));
  };

  // A problem that repeats at every stop of the clock is reported once, with when it began and
  // how often it came back.
  std::map<std::string, std::pair<TimePoint, int>> repeated;
  std::vector<std::string> repeated_order;
  auto problem = [&](TimePoint at, const std::string& what) {
    auto [it, fresh] = repeated.try_emplace(what, at, 0);
    if (fresh) repeated_order.push_back(what);
    ++it->second.second;
  };

  // The loop: apply what the world does at `now`, run what `dw watch` has due, read what the
  // product concluded, then move the clock to the next moment anything is due.
  size_t next_event = 0;
  const int64_t end_ms = ToUnixMillis(s.end);
  for (size_t steps = 0;; ++steps) {
    TimePoint now = clock.Now();
    // A stop where only the delivery, approval-expiry and receipt-sweep jobs ran changes no
    // incident (their outbox, receipt and action-log rows carry their own times), so the product's
    // conclusions are read at the next other stop: the notify job's 30 s stops then cost a
    // delivery pass only.
    bool incidents_may_change = next_event < s.events.size() && s.events[next_event].at <= now;
    while (next_event < s.events.size() && s.events[next_event].at <= now) apply(s.events[next_event++]);
    for (const auto& r : loop.RunDue()) {
      if (!r.status.ok()) problem(now, r.job + " failed: " + r.status.message());
      incidents_may_change |= r.job != "notify" && r.job != "approvals" && r.job != "receipts";
    }
    if (incidents_may_change || steps == 0) {
      Status seen = conclusions.Observe(now, report.rows);
      if (!seen.ok()) problem(now, "reading the product's incidents: " + seen.message());
    }
    int64_t now_ms = ToUnixMillis(now);
    int64_t until_job = loop.MillisUntilNextDue();
    int64_t next = until_job < 0 ? INT64_MAX : now_ms + std::max<int64_t>(until_job, 1);
    if (next_event < s.events.size()) next = std::min(next, ToUnixMillis(s.events[next_event].at));
    if (next > end_ms || steps > 1'000'000) break;
    clock.Set(FromUnixMillis(next));
    Status told = tell_simulators(clock.Now());
    if (!told.ok()) return told;
  }
  // The end of the story: the clock stands at clock.end for the verdicts.
  if (ToUnixMillis(clock.Now()) < end_ms) {
    clock.Set(s.end);
    DW_RETURN_IF_ERROR(tell_simulators(s.end));
  }
  if (Status seen = conclusions.Observe(clock.Now(), report.rows); !seen.ok())
    problem(clock.Now(), "reading the product's incidents: " + seen.message());

  for (const auto& what : repeated_order) {
    const auto& [first, times] = repeated.at(what);
    report.errors.push_back(FormatRfc3339(first) + " " + what +
                            (times > 1 ? " (" + std::to_string(times) + " times from then on)" : ""));
  }
  report.verdicts = action_failures;
  for (const auto& x : s.expect)
    report.verdicts.push_back(x.message || x.alert ? CheckReceived(x, **receivers, *http)
                                                   : CheckExpectation(x, **store, **product, conclusions));
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const TimelineRow& a, const TimelineRow& b) { return a.at < b.at; });
  // The seed page's rows beside ours: the first row of this replay that holds the seed row's words.
  report.seed_page = s.seed_page;
  for (const SeedRow& seed : s.seed_timeline) {
    SeedComparison c{seed, std::nullopt, ""};
    if (!seed.ours.empty())
      for (const TimelineRow& row : report.rows)
        if (row.what.find(seed.ours) != std::string::npos) {
          c.ours = row.at;
          c.ours_row = row.what;
          break;
        }
    report.seed.push_back(std::move(c));
  }
  report.log = std::move(job_log);
  report.wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wall.Now() - wall_start).count();
  return report;
}

}  // namespace dw::replay
