// The hold proposal: pause each consumer that would act on the damage before the fix can land —
// the customer-facing consumers in the blast radius, and whatever feeds one of them and runs
// before the first of them — each with the exact step its owner takes.
#include <algorithm>

#include "actions/drafting.h"
#include "base/rfc3339.h"

namespace dw::actions {
namespace {

std::string NameOf(const std::string& asset_id) {
  size_t slash = asset_id.find('/', asset_id.find("://") + 3);
  return slash == std::string::npos ? asset_id : asset_id.substr(slash + 1);
}

std::string InstanceOf(const std::string& asset_id) {
  size_t b = asset_id.find("://");
  if (b == std::string::npos) return "";
  size_t e = asset_id.find('/', b + 3);
  return asset_id.substr(b + 3, e == std::string::npos ? std::string::npos : e - b - 3);
}

void KestraStep(const DraftContext& c, HoldTarget& t) {
  std::optional<KestraFlowName> flow = KestraFlowOf(t.consumer);
  if (!flow) return;
  t.kestra_namespace = flow->namespace_;
  t.kestra_flow = flow->id;
  const std::string flow_name = flow->namespace_ + "." + flow->id;
  auto platform = c.ws.platforms.find(flow->platform);
  const std::string tenant =
      platform != c.ws.platforms.end() && !platform->second.tenant.empty() ? platform->second.tenant : "main";
  const std::string base = platform != c.ws.platforms.end() ? platform->second.url : "<kestra url>";
  Result<FlowFile> file = FindFlowFile(c.ws, flow->namespace_, flow->id);
  if (!file.ok() || file->trigger_ids.empty()) {
    t.step = "disable every trigger of Kestra flow " + flow_name + " before " + t.next_run +
             " (its trigger ids are not known here: " +
             (file.ok() ? std::string("the flow's YAML declares no triggers") : file.status().message()) + ")";
    t.undo = "re-enable the triggers of " + flow_name;
    return;
  }
  t.kestra_triggers = file->trigger_ids;
  Json triggers = Json::array();
  for (const std::string& id : file->trigger_ids)
    triggers.push_back({{"namespace", flow->namespace_}, {"flowId", flow->id}, {"triggerId", id}});
  t.api_call = "POST " + base + "/api/v1/" + tenant + "/triggers/set-disabled/by-triggers";
  t.api_body = {{"triggers", triggers}, {"disabled", true}};
  t.api_undo_body = {{"triggers", triggers}, {"disabled", false}};
  std::string list;
  for (size_t i = 0; i < file->trigger_ids.size(); ++i)
    list += (i ? ", " : "") + file->trigger_ids[i] + " (" + file->trigger_types[i] + ")";
  t.step = "disable the trigger" + std::string(file->trigger_ids.size() > 1 ? "s " : " ") + list +
           " of Kestra flow " + flow_name + " before " + t.next_run + ": in the UI (Triggers tab) or with " +
           t.api_call + " and body " + t.api_body.dump();
  t.undo = "re-enable them: " + t.api_call + " with body " + t.api_undo_body.dump();
}

}  // namespace

DraftedProposal DraftHold(const DraftContext& c) {
  const std::string title = "hold what acts on the damage before the fix lands";
  const Json& br = c.diagnosis.blast_radius;
  if (!br.is_object() || !br.contains("consumers") || !br["consumers"].is_array())
    return NotDrafted(ProposalKind::kHold, title, "the diagnosis has no blast radius with consumers");
  std::vector<const Json*> timed;
  for (const Json& x : br["consumers"])
    if (x.contains("next_run") && x["next_run"].is_string()) timed.push_back(&x);
  // The fix must land before the first customer-facing consumer acts.
  std::optional<TimePoint> deadline;
  std::vector<std::string> facing;
  for (const Json* x : timed)
    if (x->value("customer_facing", false)) {
      facing.push_back(x->value("id", ""));
      Result<TimePoint> at = ParseRfc3339(x->value("next_run", ""));
      if (at.ok() && (!deadline || *at < *deadline)) deadline = *at;
    }
  if (facing.empty())
    return NotDrafted(ProposalKind::kHold, title,
                      "no consumer in the blast radius is customer-facing (a scheduled asset with "
                      "customer_facing: true), so nothing needs pausing before the fix");
  HoldProposal hold;
  for (const Json* x : timed) {
    const std::string id = x->value("id", "");
    bool is_facing = x->value("customer_facing", false);
    Result<TimePoint> at = ParseRfc3339(x->value("next_run", ""));
    std::string feeds;
    for (const std::string& f : facing)
      if (Reaches(c.index, id, f)) feeds = f;
    if (!is_facing && (feeds.empty() || !at.ok() || *at > *deadline)) continue;
    HoldTarget t;
    t.consumer = id;
    t.kind = x->value("kind", "");
    t.owner = x->value("owner", "");
    t.schedule = x->value("schedule", "");
    t.next_run = x->value("next_run", "");
    t.customer_facing = is_facing;
    // No "time left" here: the content must not change with the clock alone, or every redraft
    // would be a new version superseding the one sent.
    t.why = is_facing ? id + " is customer-facing and acts on the damaged data at " + t.next_run
                      : id + " runs at " + t.next_run + ", before the first customer-facing consumer, and feeds " +
                            feeds + ": it would carry the damage into it";
    if (t.kind == "kestra") {
      KestraStep(c, t);
    } else if (t.kind == "sync") {
      t.step = "pause the sync " + NameOf(id) + " in " + InstanceOf(id) + " before its run at " + t.next_run +
               " (schedule " + t.schedule + ")";
      t.undo = "resume the sync " + NameOf(id) + " in " + InstanceOf(id);
    } else if (t.kind == "dbt") {
      t.step = "turn off the schedule (" + t.schedule + ") of the dbt job that builds " + NameOf(id) +
               " before its run at " + t.next_run;
      t.undo = "turn the schedule of the dbt job that builds " + NameOf(id) + " back on";
    } else {
      t.step = "pause " + id + " before its run at " + t.next_run + " (schedule " + t.schedule + ")";
      t.undo = "resume " + id + " on its schedule " + t.schedule;
    }
    hold.targets.push_back(std::move(t));
  }
  hold.until = "the verification plan passes; then the owner lifts each hold (the undo of each target)";
  DraftedProposal p;
  p.kind = ProposalKind::kHold;
  p.drafted = true;
  p.title = title;
  for (const HoldTarget& t : hold.targets) p.touches.push_back(t.consumer);
  p.why = "the " + c.cause.cause_kind + " on " + c.cause.asset_id + " damaged " +
          (c.incident.damaged_assets.empty() ? c.incident.root_asset : c.incident.damaged_assets.front()) +
          "; these consumers would act on it before the fix can land";
  p.evidence = c.cause.evidence;
  std::string undo;
  for (const HoldTarget& t : hold.targets) undo += (undo.empty() ? "" : "; ") + t.undo;
  p.undo = undo;
  p.content = HoldToJson(hold);
  return p;
}

}  // namespace dw::actions
