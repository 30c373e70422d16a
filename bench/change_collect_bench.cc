// The change timeline collector, measured against dw-sim child processes (so the CPU figure is
// the collector's own, not the simulators'):
//   passes: simulators holding 500 Flink jobs and 10,000 Kestra executions started in the last
//           hour; wall and CPU time of the first pass and of incremental passes (target < 2 s),
//           each incremental pass a simulated minute later (about 167 new executions).
//   log:    one JobManager log of LOG_MB MiB (default 1024) of filler with the restore lines at its
//           end, read streamed through the restore-line scanner; peak resident memory of this
//           process (target < 64 MB) and whether the skipped-state line at the end was found.
// usage: change_collect_bench passes [INCREMENTAL_PASSES]
//        change_collect_bench log [LOG_MB]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/iso_time.h"
#include "observe/changes/collector.h"
#include "platforms/flink/flink_client.h"
#include "platforms/flink/restore_log.h"
#include "tests/support/build_paths.h"

namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

// A dw-sim child process on a fixed loopback port.
class SimProcess {
 public:
  SimProcess(const std::string& platform, const fs::path& script, int port) : port_(port) {
    pid_ = fork();
    if (pid_ == 0) {
      std::string listen = "127.0.0.1:" + std::to_string(port);
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      execl(DW_SIM_BINARY, DW_SIM_BINARY, platform.c_str(), "--listen", listen.c_str(), "--script",
            script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~SimProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int port_;
};

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

void WaitUntilUp(dw::net::HttpClient& http, const std::string& url) {
  for (int i = 0; i < 500; ++i) {
    dw::net::HttpRequest req;
    req.url = url + "/_sim/clock";
    req.method = "POST";
    req.body = "{}";  // answered 400: enough to know it listens
    if (http.Send(req).ok()) return;
    usleep(20000);
  }
  std::fprintf(stderr, "simulator at %s did not start\n", url.c_str());
  std::exit(1);
}

void WriteJson(const fs::path& p, const dw::Json& j) { std::ofstream(p) << j.dump(); }

int Passes(int incremental) {
  fs::path dir = fs::temp_directory_path() / ("dw-collect-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const char* now = "2026-11-25T03:00:00Z";
  WriteJson(dir / "flink.json", {{"now", now}, {"generate", {{"jobs", 500}, {"from", "2026-11-20T00:00:00Z"}}},
                                 {"logs", {{{"name", "jobmanager.log"}, {"filler_bytes", 8 << 20}}}}});
  WriteJson(dir / "kestra.json", {{"now", now},
                                  {"generate", {{"executions", 10900}, {"namespace", "bench"}, {"flow", "load"},
                                                {"from", "2026-11-25T02:00:00Z"}, {"every_ms", 360}}}});
  auto http = dw::net::MakeCurlHttpClient();
  SimProcess flink("flink", dir / "flink.json", 18981);
  SimProcess kestra("kestra", dir / "kestra.json", 18980);
  WaitUntilUp(*http, flink.url());
  WaitUntilUp(*http, kestra.url());

  dw::config::Workspace ws;
  dw::config::PlatformConfig f;
  f.name = "flink";
  f.type = "flink";
  f.url = flink.url();
  dw::config::PlatformConfig k = f;
  k.name = "kestra";
  k.type = "kestra";
  k.url = kestra.url();
  k.tenant = "main";
  ws.platforms = {{"flink", f}, {"kestra", k}};
  dw::SimulatedClock clock(dw::FromUnixMillis(*dw::ParseIsoTimeMillis(now)));
  auto store = dw::store::OpenStateStore((dir / "state.db").string(), clock);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto pass = [&](const char* what) {
    double cpu0 = CpuSeconds();
    auto t0 = Steady::now();
    auto r = dw::observe::changes::CollectChanges(ws, *http, **store, clock);
    double wall = std::chrono::duration<double>(Steady::now() - t0).count();
    double cpu = CpuSeconds() - cpu0;
    if (!r.ok() || r->any_errors()) {
      std::fprintf(stderr, "pass failed: %s\n", r.ok() ? r->ToJson().dump().c_str() : r.status().ToString().c_str());
      std::exit(1);
    }
    int requests = 0;
    for (const auto& p : r->platforms) requests += p.requests;
    std::printf("%-12s wall %7.3f s  cpu %7.3f s  new events %6d  requests ~%d\n", what, wall, cpu,
                r->new_events(), requests);
    return wall;
  };
  pass("first");
  std::vector<double> walls;
  for (int i = 0; i < incremental; ++i) {
    // A minute passes on the platforms too: about 167 more Kestra executions have ended.
    clock.Advance(std::chrono::minutes(1));
    dw::net::HttpRequest tick;
    tick.method = "POST";
    tick.url = kestra.url() + "/_sim/clock";
    tick.body = dw::Json{{"now", dw::FormatRfc3339(clock.Now())}}.dump();
    if (!http->Send(tick).ok()) return 1;
    walls.push_back(pass("incremental"));
  }
  std::sort(walls.begin(), walls.end());
  if (!walls.empty()) std::printf("incremental median wall %.3f s over %d passes\n", walls[walls.size() / 2], incremental);
  store->reset();
  fs::remove_all(dir);
  return 0;
}

int Log(long mb) {
  fs::path dir = fs::temp_directory_path() / ("dw-log-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  WriteJson(dir / "flink.json",
            {{"logs", {{{"name", "jobmanager.log"}, {"filler_bytes", static_cast<int64_t>(mb) << 20},
                        {"lines", {{{"at", "2026-11-24T14:02:03.401Z"},
                                    {"message", "Starting job a1b2c3d4e5f60718293a4b5c6d7e8f90 from savepoint s3://b/sp (allowing non restored state)"}},
                                   {{"at", "2026-11-24T14:02:03.409Z"},
                                    {"message", "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1."}}}}}}}});
  auto http = dw::net::MakeCurlHttpClient();
  SimProcess flink("flink", dir / "flink.json", 18982);
  WaitUntilUp(*http, flink.url());
  dw::config::PlatformConfig f;
  f.name = "flink";
  f.type = "flink";
  f.url = flink.url();
  f.timeout = std::chrono::minutes(5);
  dw::platforms::flink::FlinkClient client(f, *http);
  long before = PeakRssKb();
  dw::platforms::flink::RestoreLogScanner scanner;
  auto t0 = Steady::now();
  auto r = client.ReadLog("jobmanager.log", size_t{4} << 30, [&](std::string_view l) { scanner.Feed(l); });
  double wall = std::chrono::duration<double>(Steady::now() - t0).count();
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
    return 1;
  }
  bool found = false;
  for (const auto& x : scanner.findings())
    found |= x.kind == dw::platforms::flink::RestoreLineKind::kSkippedState;
  std::printf("log %ld MiB: read %zu bytes, %zu lines in %.2f s (%.0f MiB/s); skipped-state line found: %s\n", mb,
              r->bytes, scanner.lines_read(), wall, static_cast<double>(r->bytes) / (1 << 20) / wall,
              found ? "yes" : "NO");
  std::printf("peak resident memory: %.1f MB before the read, %.1f MB after\n", before / 1024.0,
              PeakRssKb() / 1024.0);
  fs::remove_all(dir);
  return found ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "passes") return Passes(argc > 2 ? std::stoi(argv[2]) : 5);
  if (mode == "log") return Log(argc > 2 ? std::stol(argv[2]) : 1024);
  std::fprintf(stderr, "usage: %s passes [INCREMENTAL_PASSES] | log [LOG_MB]\n", argv[0]);
  return 2;
}
