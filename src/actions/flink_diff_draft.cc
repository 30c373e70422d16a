// The FlinkDeployment diff for an incident whose top cause is a Flink job's restore: redeploy
// from the savepoint the bad run restored from (taken before the bad release started), with
// allowNonRestoredState off, and hold the bad release until its state migration is planned.
#include "actions/drafting.h"
#include "base/identifiers.h"
#include "base/rfc3339.h"

namespace dw::actions {

DraftedProposal DraftFlinkDiff(const DraftContext& c) {
  const std::string title = "redeploy the last good state of " + c.cause.asset_id + " from its savepoint";
  Result<AssetId> job = ParseAssetId(c.cause.asset_id);
  if (!job.ok() || job->kind != "flink")
    return NotDrafted(ProposalKind::kFlinkDeploymentDiff, title, "the top cause is not on a Flink job");
  // The restore behind the cause: the savepoint the bad run started from.
  Result<std::vector<store::ChangeEvent>> events =
      c.store.ChangeEventsFor(c.cause.asset_id, c.diagnosis.window_from, c.clock.Now() + std::chrono::seconds(1));
  if (!events.ok())
    return NotDrafted(ProposalKind::kFlinkDeploymentDiff, title, "the change events could not be read: " +
                                                                     events.status().message());
  std::string savepoint, bad_job;
  for (const store::ChangeEvent& e : *events) {
    if (e.happened_at > c.cause.happened_at + std::chrono::minutes(5)) continue;
    if (e.kind == "restore_skipped_state" && e.evidence.contains("savepoint_path") &&
        e.evidence["savepoint_path"].is_string()) {
      savepoint = e.evidence["savepoint_path"].get<std::string>();
      bad_job = e.evidence.value("job_id", "");
    } else if (e.kind == "restore" && e.evidence.value("is_savepoint", false) && savepoint.empty()) {
      savepoint = e.evidence.value("external_path", "");
      bad_job = e.evidence.value("job_id", "");
    }
  }
  // The last good image: a recorded manifest change of this deployment that replaced spec.image.
  std::string last_good_image;
  Result<std::vector<store::ChangeEvent>> all =
      c.store.ChangeEventsFor(c.cause.asset_id, TimePoint{}, c.cause.happened_at + std::chrono::minutes(5));
  if (all.ok())
    for (const store::ChangeEvent& e : *all)
      if (e.evidence.contains("changes") && e.evidence["changes"].is_array() && e.evidence.value("deployment", "") == job->name)
        for (const Json& ch : e.evidence["changes"])
          if (ch.value("field", "") == "image" && ch.contains("before") && ch["before"].is_string())
            last_good_image = ch["before"].get<std::string>();
  if (savepoint.empty())
    return NotDrafted(ProposalKind::kFlinkDeploymentDiff, title,
                      "no savepoint taken before the bad release is recorded for " + c.cause.asset_id +
                          " (no restore from a savepoint among its change events)");
  FlinkRedeployInput in;
  in.platform = job->instance;
  in.deployment = job->name;
  in.last_good_savepoint = savepoint;
  in.last_good_image = last_good_image;
  in.bad_release = "the release of " + job->name + " that restored at " + FormatRfc3339(c.cause.happened_at) +
                   (bad_job.empty() ? "" : " (job " + bad_job + ")");
  Result<Json> content = DraftFlinkDeploymentDiff(c.ws, in);
  if (!content.ok()) {
    std::string why = content.status().message();
    const std::string prefix = "cannot draft a FlinkDeployment diff: ";
    if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    return NotDrafted(ProposalKind::kFlinkDeploymentDiff, title, why);
  }
  DraftedProposal p;
  p.kind = ProposalKind::kFlinkDeploymentDiff;
  p.drafted = true;
  p.title = title;
  p.touches = {c.cause.asset_id};
  for (const std::string& d : c.incident.damaged_assets) p.touches.push_back(d);
  p.why = c.cause.explanation.empty() ? "the restore dropped state" : c.cause.explanation;
  p.evidence = c.cause.evidence;
  p.evidence.push_back("the bad run restored from " + savepoint + ", taken before it started");
  p.undo = "revert the diff (undo_diff) in the team's Git repository; both savepoints stay recorded: " + savepoint +
           " and the one the operator takes before this redeploy";
  p.content = std::move(*content);
  return p;
}

}  // namespace dw::actions
