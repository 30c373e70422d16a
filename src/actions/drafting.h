// What the drafting of one incident's proposals shares (internal to actions/): the incident, its
// diagnosis and top cause, the graph, the workspace, and small readers of the team's files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "actions/actions.h"

namespace dw::actions {

struct DraftContext {
  const config::Workspace& ws;
  store::StateStore& store;
  const graph::GraphIndex& index;
  const incidents::Incident& incident;
  const incidents::Diagnosis& diagnosis;
  const Clock& clock;
  const DraftOptions& options;
  const incidents::Candidate& cause;  // the top-ranked candidate
};

// A Kestra flow's YAML file from the workspace's lineage.kestra_flows folder.
struct FlowFile {
  std::filesystem::path path;
  std::string text;
  std::string namespace_;
  std::string id;
  std::vector<std::string> trigger_ids;
  std::vector<std::string> trigger_types;  // same order
  std::vector<std::string> date_inputs;    // inputs of type DATE
};

// The file of flow `namespace_.id`, or kNotFound naming what is missing (no kestra_flows folder,
// no file holding that flow).
Result<FlowFile> FindFlowFile(const config::Workspace& ws, const std::string& namespace_,
                              const std::string& id);

// (platform, namespace, id) of a kestra://<platform>/<namespace>.<id> asset; nullopt otherwise.
struct KestraFlowName {
  std::string platform;
  std::string namespace_;
  std::string id;
};
std::optional<KestraFlowName> KestraFlowOf(const std::string& asset_id);

// The kind ("table", "kestra", ...) of a canonical id, "" when it is not one.
std::string KindOf(const std::string& asset_id);

// The owner the graph records for `asset`, else "".
std::string OwnerOf(const graph::GraphIndex& index, const std::string& asset);

// True iff `to` is reachable downstream of `from` in the graph (not stale edges), `from` != `to`.
bool Reaches(const graph::GraphIndex& index, const std::string& from, const std::string& to);

// The drafting of each kind (docs/actions.md, "Proposals"). Each returns a drafted proposal, or one
// with not_drafted saying what is missing; none writes anything.
// The hold: customer-facing consumers in the blast radius and their feeders that run first.
DraftedProposal DraftHold(const DraftContext& c);
// The FlinkDeployment redeploy from the savepoint the bad run restored from.
DraftedProposal DraftFlinkDiff(const DraftContext& c);
// The Kestra flow YAML diff derived from the execution's evidence and the graph.
DraftedProposal DraftKestraFlowFix(const DraftContext& c);
// Whether the top cause is a saved revision of a Kestra flow (the candidate itself, or a revision
// it was ranked with as one change).
bool CauseIsFlowRevision(const DraftContext& c);
// The Kestra flow YAML diff that rolls the flow back to the revision the cause's revision
// replaced, from the diff the revision's evidence carries and the team's flow file.
DraftedProposal DraftKestraRollback(const DraftContext& c);
// The reruns in dependency order; `held` (customer-facing held consumers) are left out.
DraftedProposal DraftRunPlan(const DraftContext& c, const std::vector<std::string>& held);
// The metrics and checks, with thresholds, that prove the repair.
DraftedProposal DraftVerificationPlan(const DraftContext& c);

// A drafted kestra_flow_diff of the cause's flow: `title`, the diff `d` with its `steps` as
// content, touching the cause's asset, with the cause's explanation and evidence and `undo`.
DraftedProposal DraftedKestraFlowDiff(const DraftContext& c, const std::string& title, const KestraFlowDiffProposal& d,
                                      const std::string& undo);

// "not drafted: <why>" as a proposal of `kind`.
DraftedProposal NotDrafted(ProposalKind kind, const std::string& title, const std::string& why);

}  // namespace dw::actions
