#include "incidents/release_guard.h"

#include <algorithm>

#include "incidents/lineage_walk.h"
#include "observe/changes/change_kinds.h"

namespace dw::incidents {

bool IsReleaseGuardKind(const store::ChangeEvent& event) {
  if (event.kind != observe::changes::kRestoreSkippedState) return false;
  // The collector says "checkpoint state" when the restore came from a checkpoint: the job
  // recovering from a failure, not a release. Its savepoint_path is then a chk-N directory.
  if (event.reason.find("checkpoint state") != std::string::npos) return false;
  if (event.evidence.is_object()) {
    std::string path = event.evidence.value("savepoint_path", std::string());
    if (path.find("/chk-") != std::string::npos) return false;
  }
  return true;
}

bool IsProcessKind(const std::string& kind) {
  return kind == "flink" || kind == "kestra" || kind == "connect" || kind == "airflow" || kind == "job";
}

namespace {

bool IsConsumerKind(const std::string& kind) { return kind == "dbt" || kind == "sync" || kind == "dashboard"; }

}  // namespace

GuardVerdict JudgeRestore(const graph::GraphIndex& index, const std::string& job, int max_depth) {
  GuardVerdict out;
  graph::AssetIndex start = index.Find(job);
  if (start == graph::kNone) return out;
  out.known = true;
  LineageWalker walker(index);
  const auto& all = walker.WalkAll({start}, WalkDirection::kDownstream, max_depth, 100000);
  for (const auto& step : all) {
    if (step.depth > 0 && (index.asset(step.asset).flags & graph::kCustomerFacing)) {
      out.customer_facing_reached = true;
      out.consumer = index.id(step.asset);
      break;
    }
  }
  const auto& near = walker.Walk({start}, WalkDirection::kDownstream, max_depth, 100000, [&](graph::AssetIndex a) {
    const std::string& kind = index.kind_name(a);
    return kind != "table" && !IsConsumerKind(kind);
  });
  for (const auto& step : near) {
    if (step.depth == 0) continue;
    const std::string& kind = index.kind_name(step.asset);
    if (IsProcessKind(kind) || IsConsumerKind(kind)) continue;
    out.damaged.push_back(index.id(step.asset));
  }
  std::sort(out.damaged.begin(), out.damaged.end());
  return out;
}

}  // namespace dw::incidents
