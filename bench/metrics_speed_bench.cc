// Speed and memory of the metric detector at fleet scale:
//  - 10,000 series, each with 2,000 points of history already learnt (untimed warm-up), then one
//    new point per series updated and judged (timed, one thread);
//  - resident memory and the detector's own accounting, per series;
//  - for contrast, replaying a series' whole history from scratch (what monitor_metrics does per
//    call today, since it keeps no detector in memory between calls).
// usage: metrics_speed_bench [SERIES] [HISTORY]   (default 10000 2000)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "observe/metrics/detector.h"

using namespace dw::observe::metrics;

namespace {

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

double Value(size_t series, size_t i) {
  // A daily wave with a per-series level and deterministic noise.
  double level = 100 + static_cast<double>(series % 97);
  double wave = std::sin(2 * M_PI * static_cast<double>(i % 24) / 24.0);
  double noise = static_cast<double>((series * 7919 + i * 104729) % 1000) / 1000.0 - 0.5;
  return level * (1 + 0.3 * wave + 0.05 * noise);
}

}  // namespace

int main(int argc, char** argv) {
  size_t series = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  size_t history = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2000;
  const int64_t hour = 3600LL * 1000, start = 1767225600000LL;
  long rss0 = RssKb();
  std::vector<std::unique_ptr<StreamingDetector>> dets;
  dets.reserve(series);
  auto w0 = std::chrono::steady_clock::now();
  for (size_t s = 0; s < series; ++s) {
    dets.push_back(std::make_unique<StreamingDetector>("m" + std::to_string(s), DetectorOptions{}));
    for (size_t i = 0; i < history; ++i) dets.back()->Observe(start + static_cast<int64_t>(i) * hour, Value(s, i));
  }
  auto w1 = std::chrono::steady_clock::now();
  long rss1 = RssKb();
  size_t bytes = 0;
  for (const auto& d : dets) bytes += d->MemoryBytes();

  size_t alarms = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t s = 0; s < series; ++s) {
    Verdict v = dets[s]->Observe(start + static_cast<int64_t>(history) * hour, Value(s, history));
    alarms += IsAlarm(v.kind);
  }
  auto t1 = std::chrono::steady_clock::now();

  // Replay of one series' full history from nothing (100 series, scaled up).
  size_t replay_n = std::min<size_t>(series, 100);
  auto r0 = std::chrono::steady_clock::now();
  for (size_t s = 0; s < replay_n; ++s) {
    StreamingDetector d("r", {});
    for (size_t i = 0; i <= history; ++i) d.Observe(start + static_cast<int64_t>(i) * hour, Value(s, i));
  }
  auto r1 = std::chrono::steady_clock::now();

  double judge_s = std::chrono::duration<double>(t1 - t0).count();
  double replay_s = std::chrono::duration<double>(r1 - r0).count() / static_cast<double>(replay_n);
  std::printf("series %zu, history %zu points each (warm-up %.1f s)\n", series, history,
              std::chrono::duration<double>(w1 - w0).count());
  std::printf("latest point of every series updated and judged: %.3f s (%.1f us/series), %zu alarms\n",
              judge_s, 1e6 * judge_s / static_cast<double>(series), alarms);
  std::printf("memory per series: %.1f kB resident, %.1f kB by the detector's own count\n",
              static_cast<double>(rss1 - rss0) / static_cast<double>(series),
              static_cast<double>(bytes) / 1024.0 / static_cast<double>(series));
  std::printf("replaying one series' %zu-point history from scratch: %.2f ms\n", history + 1,
              1e3 * replay_s);
  return 0;
}
