// The run plan: the reruns that repair the damage, in dependency order from the graph. First the
// cause, fixed (the redeploy or the corrected flow); then the flows that rewrite a damaged asset
// and are started by hand (a re-rate); then the scheduled processes downstream of the damage, each
// after every process upstream of it (a model after the models it reads, however short another
// path to it), and among those free to run by depth and then by the time of day they run. Each step says what must be true before the next
// starts. Held consumers, processes that run continuously or on every event, and models built by
// a step of the plan are not rerun, and the plan says why.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "actions/drafting.h"
#include "base/rfc3339.h"
#include "graph/next_act.h"
#include "graph/blast_radius.h"

namespace dw::actions {
namespace {

bool IsProcess(const std::string& kind) { return kind == "kestra" || kind == "dbt" || kind == "flink" || kind == "connect"; }

// The checks configured on what `asset` writes (its direct downstream tables), as one sentence.
std::string ChecksOnWrites(const DraftContext& c, const std::string& asset, const std::set<std::string>& only = {}) {
  graph::AssetIndex a = c.index.Find(asset);
  if (a == graph::kNone) return "";
  std::string out;
  for (graph::EdgeIndex e : c.index.out(a)) {
    const std::string& dst = c.index.id(c.index.edge(e).dst);
    if (!only.empty() && !only.count(dst)) continue;
    for (const config::CheckConfig& check : c.ws.checks)
      if (check.asset_id == dst) out += (out.empty() ? "" : " and ") + std::string("the checks on ") + check.table + " pass";
  }
  return out;
}

std::optional<FlowFile> FlowFileOf(const DraftContext& c, const std::string& asset) {
  std::optional<KestraFlowName> f = KestraFlowOf(asset);
  if (!f) return std::nullopt;
  Result<FlowFile> file = FindFlowFile(c.ws, f->namespace_, f->id);
  if (!file.ok()) return std::nullopt;
  return *file;
}

bool OnlyRealtime(const FlowFile& f) {
  if (f.trigger_types.empty()) return false;
  return std::all_of(f.trigger_types.begin(), f.trigger_types.end(),
                     [](const std::string& t) { return t.find("Realtime") != std::string::npos; });
}

std::string FlowName(const std::string& asset) {
  std::optional<KestraFlowName> f = KestraFlowOf(asset);
  return f ? f->namespace_ + "." + f->id : asset;
}

// A process to rerun below the damage, with what orders it among the others.
struct Later {
  uint32_t depth;   // the walk's (shortest) distance from the damage
  int64_t next_ms;  // when it acts next by itself
  std::string asset;
};

// `later` in dependency order: no process before one upstream of it among what the walk reached
// (a model after every model it reads, however much shorter another path to it is); among those
// free to run, by depth, then by the time they act next, then by id. A cycle is cut at its first
// member in that order.
std::vector<Later> DependencyOrder(const graph::GraphIndex& index, const graph::WalkResult& walk,
                                   const std::vector<Later>& later) {
  const size_t n = walk.reached.size();
  std::unordered_map<graph::AssetIndex, size_t> pos;  // reached asset -> its position in walk.reached
  for (size_t i = 0; i < n; ++i) pos.emplace(walk.reached[i].asset, i);
  std::unordered_map<std::string, size_t> later_of;
  for (size_t i = 0; i < later.size(); ++i) later_of.emplace(later[i].asset, i);
  // Every reached asset's key; one that is not a process to rerun acts at no time of its own.
  std::vector<Later> key(n);
  std::vector<int64_t> process(n, -1);  // index into `later`, or -1
  for (size_t i = 0; i < n; ++i) {
    const std::string& id = index.id(walk.reached[i].asset);
    auto l = later_of.find(id);
    if (l != later_of.end()) process[i] = static_cast<int64_t>(l->second);
    key[i] = l != later_of.end() ? later[l->second] : Later{walk.reached[i].depth, INT64_MAX, id};
  }
  auto before = [&key](size_t a, size_t b) {
    const Later &p = key[a], &q = key[b];
    if (p.depth != q.depth) return p.depth < q.depth;
    if (p.next_ms != q.next_ms) return p.next_ms < q.next_ms;
    return p.asset != q.asset ? p.asset < q.asset : a < b;
  };
  // Edges among the reached assets (the damage itself is done: edges from it are satisfied).
  std::vector<size_t> waiting(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (graph::EdgeIndex e : index.out(walk.reached[i].asset)) {
      if (index.edge(e).IsStale()) continue;
      auto it = pos.find(index.edge(e).dst);
      if (it != pos.end() && it->second != i) ++waiting[it->second];
    }
  std::set<size_t, decltype(before)> ready(before), blocked(before);
  for (size_t i = 0; i < n; ++i) (waiting[i] == 0 ? ready : blocked).insert(i);
  std::vector<Later> out;
  while (!ready.empty() || !blocked.empty()) {
    // The first free asset in order; when none is free (a cycle), the first blocked one.
    std::set<size_t, decltype(before)>& from = ready.empty() ? blocked : ready;
    const size_t next = *from.begin();
    from.erase(from.begin());
    if (process[next] >= 0) out.push_back(later[static_cast<size_t>(process[next])]);
    for (graph::EdgeIndex e : index.out(walk.reached[next].asset)) {
      if (index.edge(e).IsStale()) continue;
      auto it = pos.find(index.edge(e).dst);
      if (it == pos.end() || it->second == next || waiting[it->second] == 0) continue;
      if (--waiting[it->second] == 0 && blocked.erase(it->second) > 0) ready.insert(it->second);
    }
  }
  return out;
}

}  // namespace

DraftedProposal DraftRunPlan(const DraftContext& c, const std::vector<std::string>& held) {
  const std::string title = "rerun what repairs the damage, in dependency order";
  std::set<std::string> held_set(held.begin(), held.end());
  std::set<std::string> damaged(c.incident.damaged_assets.begin(), c.incident.damaged_assets.end());
  RunPlan plan;
  std::set<std::string> planned;
  const std::string first_day = FormatRfc3339(c.incident.first_bad_at).substr(0, 10);
  auto add = [&](const std::string& asset, std::string action, std::string precondition) {
    RunStep s;
    s.order = static_cast<int>(plan.steps.size()) + 1;
    s.asset = asset;
    s.owner = OwnerOf(c.index, asset);
    s.action = std::move(action);
    if (!plan.steps.empty()) s.after = {plan.steps.back().asset};
    s.precondition = std::move(precondition);
    plan.steps.push_back(std::move(s));
    planned.insert(asset);
  };

  // 1. The cause, fixed.
  const std::string cause_kind = KindOf(c.cause.asset_id);
  if (cause_kind == "flink") {
    add(c.cause.asset_id,
        "apply the FlinkDeployment diff (proposal " + c.incident.id + "-flink_deployment_diff) and let the operator "
        "redeploy " + c.cause.asset_id + " from its savepoint",
        "the job is RUNNING, restored with no skipped state, and has caught up on its input; its output is "
        "back in line (the verification plan's metrics)");
  } else if (cause_kind == "kestra") {
    std::string checks = ChecksOnWrites(c, c.cause.asset_id);
    add(c.cause.asset_id,
        "save the fixed flow (proposal " + c.incident.id + "-kestra_flow_diff) and start " + FlowName(c.cause.asset_id),
        "the execution of " + FlowName(c.cause.asset_id) + " is SUCCESS and called the fixed endpoint" +
            (checks.empty() ? "" : "; " + checks));
  } else if (IsProcess(cause_kind)) {
    add(c.cause.asset_id, "rerun " + c.cause.asset_id + " once its cause is fixed",
        c.cause.asset_id + " finished successfully");
  }

  // 2. Flows started by hand that rewrite a damaged asset (a re-rate, a backfill).
  for (const std::string& d : c.incident.damaged_assets) {
    graph::AssetIndex a = c.index.Find(d);
    if (a == graph::kNone) continue;
    for (graph::EdgeIndex e : c.index.in(a)) {
      const std::string& src = c.index.id(c.index.edge(e).src);
      if (planned.count(src) || KindOf(src) != "kestra") continue;
      std::optional<FlowFile> f = FlowFileOf(c, src);
      if (!f) continue;
      if (!f->trigger_ids.empty()) continue;  // runs by itself: not a repair flow
      std::string inputs;
      for (const std::string& in : f->date_inputs) inputs += (inputs.empty() ? " with " : ", ") + in + " = " + first_day;
      std::string checks = ChecksOnWrites(c, src, damaged);
      add(src, "start " + FlowName(src) + inputs + " (it rewrites " + d + ")",
          "the execution is SUCCESS" + (checks.empty() ? "" : " and " + checks));
    }
  }

  // 3. Scheduled processes downstream of the damage.
  std::vector<graph::AssetIndex> roots;
  for (const std::string& d : c.incident.damaged_assets)
    if (graph::AssetIndex a = c.index.Find(d); a != graph::kNone) roots.push_back(a);
  graph::WalkResult walk;
  graph::DownstreamWalker(c.index).Walk(roots, graph::WalkOptions{}, &walk);
  std::vector<Later> later;
  for (const graph::Reached& r : walk.reached) {
    const std::string& id = c.index.id(r.asset);
    const std::string kind = c.index.kind_name(r.asset);
    if (!IsProcess(kind) || planned.count(id) || id == c.cause.asset_id) continue;
    if (held_set.count(id)) {
      plan.excluded.push_back(id + ": held; its owner lifts the hold after the verification plan passes");
      continue;
    }
    if (kind == "flink" || kind == "connect") {
      plan.excluded.push_back(id + ": runs continuously and carries the corrections through as they arrive");
      continue;
    }
    std::optional<FlowFile> f = kind == "kestra" ? FlowFileOf(c, id) : std::nullopt;
    if (f && OnlyRealtime(*f)) {
      plan.excluded.push_back(id + ": runs once per event; the repair rewrites what it wrote");
      continue;
    }
    // A model built by a process already reached is rebuilt by that process.
    bool built_by_process = false;
    for (graph::EdgeIndex e : c.index.in(r.asset)) {
      const std::string& src = c.index.id(c.index.edge(e).src);
      if (IsProcess(KindOf(src)) && KindOf(src) != "dbt" && src != id) built_by_process = true;
    }
    if (kind == "dbt" && built_by_process) {
      plan.excluded.push_back(id + ": rebuilt by the step that builds it");
      continue;
    }
    int64_t next_ms = INT64_MAX;
    if (auto act = graph::NextActOf(c.index.details(r.asset), c.clock.Now(), c.ws.timezone)) next_ms = graph::NextActOrder(*act);
    later.push_back({r.depth, next_ms, id});
  }
  for (const Later& l : DependencyOrder(c.index, walk, later)) {
    const std::string kind = KindOf(l.asset);
    std::string checks = ChecksOnWrites(c, l.asset);
    std::string action = kind == "dbt" ? "run the dbt job that builds " + l.asset.substr(l.asset.rfind('/') + 1)
                         : kind == "kestra" ? "start " + FlowName(l.asset)
                                            : "rerun " + l.asset;
    add(l.asset, action, (kind == "kestra" ? "the execution is SUCCESS" : l.asset + " finished successfully") +
                             (checks.empty() ? "" : " and " + checks));
  }
  if (plan.steps.empty())
    return NotDrafted(ProposalKind::kRunPlan, title,
                      "the graph shows no process that repairs or rebuilds the damaged assets");
  plan.steps.back().precondition += "; then the verification plan runs";
  DraftedProposal p;
  p.kind = ProposalKind::kRunPlan;
  p.drafted = true;
  p.title = title;
  for (const RunStep& s : plan.steps) p.touches.push_back(s.asset);
  p.why = "the damaged data must be rewritten from the fixed cause, and everything built from it rebuilt, "
          "in the order the lineage gives";
  p.evidence = c.cause.evidence;
  p.undo = "reruns replace data; to undo, rerun the same steps after reverting the fix (the data returns to "
           "what the cause wrote)";
  p.content = RunPlanToJson(plan);
  return p;
}

}  // namespace dw::actions
