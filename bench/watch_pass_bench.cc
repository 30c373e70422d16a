// One `dw watch` pass over many monitors through the real state store (SQLite, or PostgreSQL with
// --pg): for every series, what a monitor's job does after its query returns one new value:
// RecordMetricPoints (the new point) and JudgeLatestPoint (load the detector snapshot, read the
// points after it, the marks and the incident windows, resume, save the snapshot, judge). Timed
// per pass, wall clock, single thread or --threads N (each thread its own store connection).
// With --batch N a pass goes through the batched front door instead (observe/metrics/
// metric_batch.h): RecordMetricPointsOfMany and JudgeLatestPoints (with the incidents' windows read
// once per batch) over N series at a time; then --per-series-passes passes (default 1) of the
// one-series path follow in the same run, as its baseline.
//
// Setup (untimed): every series gets a snapshot learnt from HISTORY points of the same generator
// (learnt once per shape and saved under each series' own name and history start, through the
// same SaveReplayerSnapshot the judgement uses) and its latest point, so the store holds what it
// holds in steady state; the points before the snapshot are not needed by a pass that resumes.
// The baseline, in the same run: the same judgement with snapshots off (a full replay of HISTORY
// stored points) on --baseline-series series, as the product did before snapshots.
//
// --snapshot-every K sets MetricToJudge::snapshot_every for the batched passes (default the product's,
// kSnapshotEveryPoints). --k1-passes N adds N batched passes in the same run with what main did
// before the cadence: a snapshot saved after every judgement (K=1) and, on PostgreSQL, the state
// column's default storage (EXTENDED: compression attempted), as the baseline of the same run.
// With --pg, each pass also reports the WAL the server wrote (pg_current_wal_lsn before and after).
//
// usage: watch_pass_bench SERIES [--history N] [--passes N] [--threads N] [--pg URL]
//                                [--baseline-series N] [--dir PATH] [--batch N]
//                                [--per-series-passes N] [--snapshot-every K] [--k1-passes N]
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_replayer.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/metric_snapshot.h"
#include "store/postgres_connection.h"
#include "store/state_store.h"
#include "workspace/incident_windows.h"

using namespace dw;
using namespace dw::observe::metrics;

namespace {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC
constexpr int kShapes = 16;

double Value(size_t shape, size_t i) {
  double level = 100 + static_cast<double>(shape * 37 % 97);
  double wave = std::sin(2 * M_PI * static_cast<double>(i % 24) / 24.0);
  double noise = static_cast<double>((shape * 7919 + i * 104729) % 1000) / 1000.0 - 0.5;
  return level * (1 + 0.3 * wave + 0.05 * noise);
}

std::string Name(size_t s) { return "quality:table://main/t" + std::to_string(s) + ":row_count"; }

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds (user + system) used by this process so far, every thread included.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Bytes this process has written through write calls so far (/proc/self/io wchar: SQLite's WAL and
// checkpoints; PostgreSQL's writes are the server's), or -1 when the kernel does not say.
long long WrittenBytes() {
  FILE* f = std::fopen("/proc/self/io", "r");
  if (!f) return -1;
  char line[128];
  long long out = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "wchar: %lld", &out) == 1) break;
  std::fclose(f);
  return out;
}

// CPU seconds (user + system) used so far by process `pid` and its children processes that are
// still running (PostgreSQL: the postmaster and every backend and helper of the server), read
// from /proc; 0 when it cannot be read.
double ProcessCpuSeconds(long pid) {
  auto cpu_of = [](const std::string& stat_path, long* ppid) -> double {
    FILE* f = std::fopen(stat_path.c_str(), "r");
    if (!f) return 0;
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* p = std::strrchr(buf, ')');  // after the command name, which may hold spaces
    if (!p) return 0;
    char state;
    long parent = 0;
    unsigned long long ut = 0, st = 0;
    if (std::sscanf(p + 2, "%c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &parent, &ut, &st) != 4)
      return 0;
    *ppid = parent;
    return static_cast<double>(ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
  };
  long ignored = 0;
  double total = cpu_of("/proc/" + std::to_string(pid) + "/stat", &ignored);
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    long ppid = 0;
    double c = cpu_of(e.path().string() + "/stat", &ppid);
    if (ppid == pid) total += c;
  }
  return total;
}

void Die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SERIES [--history N] [--passes N] [--threads N] [--pg URL] [--baseline-series N] [--dir PATH] [--batch N] [--per-series-passes N] [--snapshot-every K] [--k1-passes N]\n", argv[0]);
    return 2;
  }
  size_t series = std::strtoul(argv[1], nullptr, 10);
  size_t history = 2000, passes = 3, threads = 1, baseline = 50, batch = 0, per_series_passes = 1, k1_passes = 0;
  int snapshot_every = kSnapshotEveryPoints;
  std::string pg, dir = "/tmp/watch-pass-bench-" + std::to_string(::getpid());
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--history") history = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--passes") passes = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--threads") threads = std::max<size_t>(1, std::strtoul(v.c_str(), nullptr, 10));
    else if (k == "--pg") pg = v;
    else if (k == "--baseline-series") baseline = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--dir") dir = v;
    else if (k == "--batch") batch = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--per-series-passes") per_series_passes = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "--snapshot-every") snapshot_every = std::max(1, std::atoi(v.c_str()));
    else if (k == "--k1-passes") k1_passes = std::strtoul(v.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::string location = pg;
  long server_pid = 0;  // PostgreSQL's postmaster, when found on this host
  if (pg.empty()) {
    std::filesystem::remove_all(dir);
    location = dir + "/state.db";
  } else {
    // A schema of its own, dropped first: the bench never sees another run's rows.
    auto admin = store::OpenPostgresConnection(pg);
    if (!admin.ok()) Die("postgres", admin.status());
    Status st = (*admin)->ExecScript("DROP SCHEMA IF EXISTS dw_watch_bench CASCADE; CREATE SCHEMA dw_watch_bench");
    if (!st.ok()) Die("postgres schema", st);
    location = pg + (pg.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3Ddw_watch_bench";
    // The server's postmaster (the parent of this session's backend), when it runs on this host:
    // its CPU per pass is reported beside the bench's own.
    auto rows = (*admin)->Query("SELECT pg_backend_pid()");
    if (rows.ok() && rows->size() == 1 && std::holds_alternative<int64_t>((*rows)[0][0])) {
      long backend = static_cast<long>(std::get<int64_t>((*rows)[0][0]));
      std::FILE* f = std::fopen(("/proc/" + std::to_string(backend) + "/stat").c_str(), "r");
      if (f) {
        char buf[1024];
        size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        std::fclose(f);
        const char* p = std::strrchr(buf, ')');
        if (p) std::sscanf(p + 2, "%*c %ld", &server_pid);
      }
    }
  }
  // The clock: each pass is one hour after the previous; the history ends at `history`.
  SimulatedClock clock(FromUnixMillis(kStart + static_cast<int64_t>(history) * kHour));
  std::vector<std::unique_ptr<store::StateStore>> stores;
  for (size_t t = 0; t < threads; ++t) {
    auto s = store::OpenStateStore(location, clock);
    if (!s.ok()) Die("open store", s.status());
    stores.push_back(std::move(s).value());
  }
  store::StateStore& store = *stores[0];
  MonitorSettings settings;
  settings.training_window_ms = static_cast<int64_t>(history + 24 * 30) * kHour;  // the whole history
  settings.asset_id = "table://main/t";

  // Setup: one replayer per shape learns points 0 .. history-1; each series stores point
  // `history` (the latest) and the snapshot through point history-1.
  auto s0 = std::chrono::steady_clock::now();
  std::vector<MetricReplayer> shapes;
  for (int k = 0; k < kShapes; ++k) {
    auto r = MetricReplayer::Start("shape", settings);
    if (!r.ok()) Die("replayer", r.status());
    for (size_t i = 0; i < history; ++i)
      r->Feed({FromUnixMillis(kStart + static_cast<int64_t>(i) * kHour), Value(static_cast<size_t>(k), i)}, {}, {});
    shapes.push_back(std::move(r).value());
  }
  int64_t now = ToUnixMillis(clock.Now());
  size_t snapshot_bytes = 0;
  const size_t chunk = 1000;
  for (size_t a = 0; a < series; a += chunk) {
    Status st = store.InTransaction([&](store::StateStore& tx) -> Status {
      for (size_t s = a; s < std::min(series, a + chunk); ++s) {
        size_t shape = s % kShapes;
        DW_RETURN_IF_ERROR(tx.UpsertMetricPoints(Name(s), {{FromUnixMillis(now), Value(shape, history)}}));
        int64_t start = HistoryStartMs(Name(s), settings.training_window_ms, now);
        auto saved = SaveReplayerSnapshot(tx, Name(s), shapes[shape], 0, start, now - kHour, {}, {});
        if (!saved.ok()) return saved.status();
      }
      return Status::Ok();
    });
    if (!st.ok()) Die("setup", st);
  }
  {
    auto load = store::MetricSnapshotsOf(store)->LoadMetricSnapshot(Name(0));
    if (!load.ok() || !load->snapshot) Die("setup check", load.status());
    snapshot_bytes = load->snapshot->state.size();
  }
  // Baseline series: their whole history stored, judged with snapshots off.
  std::vector<std::string> base_names;
  for (size_t b = 0; b < baseline; ++b) {
    std::string name = "baseline:" + std::to_string(b);
    std::vector<store::MetricPoint> pts;
    for (size_t i = 0; i <= history; ++i)
      pts.push_back({FromUnixMillis(kStart + static_cast<int64_t>(i) * kHour), Value(b % kShapes, i)});
    Status st = store.UpsertMetricPoints(name, pts);
    if (!st.ok()) Die("baseline setup", st);
    base_names.push_back(name);
  }
  auto s1 = std::chrono::steady_clock::now();
  std::printf("%s store, %zu series, snapshots learnt from %zu points each (%zu bytes of state, stored as "
              "bytes); setup %.1f s\n",
              pg.empty() ? "SQLite" : "PostgreSQL", series, history, snapshot_bytes, Seconds(s0, s1));

  // The WAL position of the server (PostgreSQL), to report what each pass made it write.
  std::unique_ptr<store::SqlConnection> wal_conn;
  if (!pg.empty()) {
    auto c = store::OpenPostgresConnection(pg);
    if (!c.ok()) Die("postgres", c.status());
    wal_conn = std::move(c).value();
  }
  auto wal_lsn = [&]() -> std::string {
    if (!wal_conn) return "";
    auto rows = wal_conn->Query("SELECT pg_current_wal_lsn()::text");
    return rows.ok() && rows->size() == 1 ? std::get<std::string>((*rows)[0][0]) : "";
  };
  auto wal_bytes_since = [&](const std::string& from) -> double {
    if (!wal_conn || from.empty()) return -1;
    auto rows = wal_conn->Query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8", {from});
    return rows.ok() && rows->size() == 1 ? std::get<double>((*rows)[0][0]) : -1;
  };

  const size_t batch_passes = batch > 0 ? passes + k1_passes : passes;
  const size_t total_passes = batch > 0 ? batch_passes + per_series_passes : passes;
  for (size_t pass = 1; pass <= total_passes; ++pass) {
    const bool batched = batch > 0 && pass <= batch_passes;
    const bool k1 = batched && pass > passes;
    if (k1 && pass == passes + 1) {
      snapshot_every = 1;
      if (wal_conn) {
        Status st = wal_conn->ExecScript(
            "ALTER TABLE dw_watch_bench.metric_snapshots ALTER COLUMN state SET STORAGE EXTENDED");
        if (!st.ok()) Die("storage extended", st);
      }
    }
    clock.Advance(std::chrono::hours(1));
    int64_t t = ToUnixMillis(clock.Now());
    size_t step = history + pass;
    std::atomic<size_t> resumed{0}, alarms{0}, failed{0};
    auto p0 = std::chrono::steady_clock::now();
    double c0 = CpuSeconds();
    long long w0 = WrittenBytes();
    double server0 = server_pid ? ProcessCpuSeconds(server_pid) : 0;
    const std::string lsn0 = wal_lsn();
    auto work_batched = [&](size_t thread) {
      store::StateStore& st = *stores[thread];
      auto windows = workspace::IncidentWindowsOfMany(st);
      for (size_t a = thread * batch; a < series; a += threads * batch) {
        std::vector<MetricPointsToRecord> points;
        std::vector<MetricToJudge> judge;
        for (size_t s = a; s < std::min(series, a + batch); ++s) {
          points.push_back({Name(s), {{t, Value(s % kShapes, step)}}});
          judge.push_back({Name(s), settings, snapshot_every});
        }
        auto recorded = RecordMetricPointsOfMany(st, points);
        auto judged = JudgeLatestPoints(st, judge, clock, windows);
        for (size_t k = 0; k < judged.size(); ++k) {
          const Status bad = !recorded[k].ok() ? recorded[k].status() : judged[k].status();
          if (!bad.ok()) {
            if (failed++ == 0) std::fprintf(stderr, "%s: %s\n", judge[k].metric.c_str(), bad.ToString().c_str());
            continue;
          }
          resumed += judged[k]->from_snapshot;
          alarms += IsAlarm(judged[k]->latest.kind);
        }
      }
    };
    auto work = [&](size_t thread) {
      if (batched) return work_batched(thread);
      store::StateStore& st = *stores[thread];
      auto windows = workspace::IncidentWindows(st);
      for (size_t s = thread; s < series; s += threads) {
        auto rec = RecordMetricPoints(st, Name(s), {{t, Value(s % kShapes, step)}});
        auto j = rec.ok() ? JudgeLatestPoint(st, Name(s), settings, clock, windows) : Result<MetricJudgement>(rec.status());
        if (!j.ok()) {
          if (failed++ == 0) std::fprintf(stderr, "%s: %s\n", Name(s).c_str(), j.status().ToString().c_str());
          continue;
        }
        resumed += j->from_snapshot;
        alarms += IsAlarm(j->latest.kind);
      }
    };
    std::vector<std::thread> pool;
    for (size_t k = 0; k < threads; ++k) pool.emplace_back(work, k);
    for (auto& th : pool) th.join();
    auto p1 = std::chrono::steady_clock::now();
    double cpu = CpuSeconds() - c0;
    long long w1 = WrittenBytes();
    double server_cpu = server_pid ? ProcessCpuSeconds(server_pid) - server0 : 0;
    const double wal = wal_bytes_since(lsn0);
    std::string how = batched ? "batched by " + std::to_string(batch) : std::string("one series at a time");
    how += ", snapshot every " + std::to_string(batched ? snapshot_every : kSnapshotEveryPoints) + (k1 ? " and main's storage: baseline" : "");
    std::printf("pass %zu (%s): %zu series in %.3f s wall, %.3f s CPU (%.1f us/series), %zu resumed from a snapshot, %zu alarms, %zu failed, %.0f MB written by this process\n",
                pass, how.c_str(), series, Seconds(p0, p1), cpu, 1e6 * cpu / static_cast<double>(series),
                resumed.load(), alarms.load(), failed.load(), w0 < 0 || w1 < 0 ? -1.0 : static_cast<double>(w1 - w0) / 1e6);
    if (server_pid) std::printf("  PostgreSQL server CPU in that pass: %.3f s (all its processes)\n", server_cpu);
    if (wal >= 0) std::printf("  PostgreSQL WAL written in that pass: %.0f MB\n", wal / 1e6);
  }
  if (baseline > 0) {
    MonitorSettings off = settings;
    off.use_snapshots = false;
    auto b0 = std::chrono::steady_clock::now();
    double c0 = CpuSeconds();
    for (const auto& name : base_names) {
      auto j = JudgeLatestPoint(store, name, off, clock, workspace::IncidentWindows(store));
      if (!j.ok()) Die("baseline", j.status());
    }
    auto b1 = std::chrono::steady_clock::now();
    double per = Seconds(b0, b1) / static_cast<double>(baseline);
    double cpu = (CpuSeconds() - c0) / static_cast<double>(baseline);
    std::printf("baseline, snapshots off (full replay of %zu stored points): %.2f ms/series wall, %.2f ms CPU, so %.0f s of CPU for %zu series\n",
                history + 1, 1e3 * per, 1e3 * cpu, cpu * static_cast<double>(series), series);
  }
  if (pg.empty()) std::filesystem::remove_all(dir);
  return 0;
}
