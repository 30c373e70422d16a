// Drafting all proposals for the Flink seed incident (target < 100 ms), on a copy of
// examples/loyalty-flink with the incident set up as the collectors and monitors store it (the
// restore that skipped state at 14:02, the 15:00 drop of avg_active_balance):
//   diagnose  IncidentDesk::Diagnose alone (the baseline every draft starts from)
//   draft     DraftIncidentProposals over a diagnosis already made: hold, FlinkDeployment diff
//             (reads the manifest folder, makes and checks the diff), run plan, verification plan
//   propose   ProposeForIncident end to end: diagnose, draft, compare with the stored versions
//             (unchanged after the first run, so nothing new is stored or sent)
// Each is run N times; the median and the slowest are printed in milliseconds.
// usage: propose_bench [N]   (default 200)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <vector>

#include <unistd.h>

#include "actions/actions.h"
#include "base/rfc3339.h"
#include "tests/support/build_paths.h"
#include "workspace/services.h"

namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

dw::TimePoint At(const char* t) { return *dw::ParseRfc3339(t); }

void Report(const char* what, int n, const std::function<bool()>& fn) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    auto t0 = Steady::now();
    if (!fn()) {
      std::fprintf(stderr, "%s failed\n", what);
      std::exit(1);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-9s n=%d  median %.3f ms  p90 %.3f ms  max %.3f ms\n", what, n, ms[ms.size() / 2],
              ms[ms.size() * 9 / 10], ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  fs::path dir = fs::temp_directory_path() / ("dw-propose-bench-" + std::to_string(getpid()));
  fs::copy(fs::path(DW_SOURCE_DIR) / "examples/loyalty-flink", dir, fs::copy_options::recursive);
  fs::remove_all(dir / ".dw");
  dw::SimulatedClock clock(At("2026-11-24T15:15:00Z"));
  auto services = dw::workspace::Services::Load(dir, clock);
  if (!services->workspace_status().ok()) return std::fprintf(stderr, "%s\n", services->workspace_status().message().c_str()), 1;
  auto store = services->state();
  auto graph = services->graph();
  if (!store.ok() || !graph.ok()) return std::fprintf(stderr, "store or graph failed\n"), 1;
  dw::store::ChangeEvent e;
  e.dedup_key = "flink:flink:a1b2:skipped:90bea";
  e.asset_id = "flink://flink/points-balance";
  e.kind = "restore_skipped_state";
  e.happened_at = e.observed_at = At("2026-11-24T14:02:03Z");
  e.evidence = {{"job_id", "a1b2c3d4e5f60718293a4b5c6d7e8f90"},
                {"savepoint_path", "s3://loyalty-flink/savepoints/points-balance/savepoint-3f9a6c-8e2d41c0a7b5"}};
  e.risk = 0.95;
  e.reason = "the restore dropped the savepoint state of operator 90bea66de1c231edf33913ecd54406c1";
  if (!(*store)->AddChangeEvent(e).ok()) return 1;
  dw::incidents::IncidentDesk desk(**store, *graph, clock, dw::incidents::DeskOptionsFor(services->workspace()));
  dw::incidents::Signal s;
  s.kind = dw::incidents::SignalKind::kMetric;
  s.key = "metric:avg_active_balance";
  s.asset_id = "table://main/member_balances";
  s.at = At("2026-11-24T15:00:00Z");
  s.shape = dw::incidents::SignalShape::kLevelDrop;
  s.value = 580;
  s.expected = 6400;
  dw::incidents::SignalBatch batch;
  batch.signals = {s};
  auto opened = desk.Evaluate(batch);
  if (!opened.ok() || opened->opened.empty()) return std::fprintf(stderr, "no incident opened\n"), 1;
  const std::string id = opened->opened.front();
  auto diagnosis = desk.Diagnose(id);
  auto incident = desk.Get(id);
  if (!diagnosis.ok() || !incident.ok()) return 1;
  const dw::actions::DraftOptions options;

  Report("diagnose", n, [&] { return desk.Diagnose(id).ok(); });
  Report("draft", n, [&] {
    return (*graph)->Read([&](const dw::graph::GraphIndex& index) {
      auto set = dw::actions::DraftIncidentProposals(services->workspace(), **store, index, *incident, *diagnosis,
                                                     clock, options);
      return set.ok() && set->proposals.size() == 4 &&
             std::all_of(set->proposals.begin(), set->proposals.end(), [](const auto& p) { return p.drafted; });
    });
  });
  Report("propose", n, [&] {
    return dw::actions::ProposeForIncident(services->workspace(), **store, *graph, id, clock, options).ok();
  });
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
