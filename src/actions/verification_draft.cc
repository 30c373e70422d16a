// The verification plan: the metrics and checks that prove the repair, with the thresholds that
// will be used — each metric the incident holds back inside its band (or its declared expected
// range), each failing check passing, and every check on the damaged assets passing.
#include <algorithm>
#include <set>

#include "actions/drafting.h"

namespace dw::actions {
namespace {

std::string Number(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

const config::MonitorConfig* MonitorNamed(const config::Workspace& ws, const std::string& name) {
  for (const config::MonitorConfig& m : ws.monitors)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace

DraftedProposal DraftVerificationPlan(const DraftContext& c) {
  const std::string title = "verify the repair";
  VerificationPlan plan;
  std::set<std::string> named;
  for (const incidents::SignalRef& s : c.incident.signals) {
    if (s.kind == incidents::SignalKind::kMetric && s.key.rfind("metric:", 0) == 0) {
      const std::string name = s.key.substr(7);
      VerificationItem i;
      i.kind = "metric";
      i.name = name;
      i.asset = s.asset_id;
      i.failing_now = s.bad_now;
      const config::MonitorConfig* m = MonitorNamed(c.ws, name);
      const Json* expected = m && m->spec.contains("expected") ? &m->spec["expected"] : nullptr;
      if (expected && expected->contains("max") && (*expected)["max"].is_number()) {
        i.op = "<=";
        i.value = (*expected)["max"].get<double>();
        i.threshold = "at most " + Number(*i.value) + " (its declared expected maximum)";
      } else if (expected && expected->contains("min") && (*expected)["min"].is_number()) {
        i.op = ">=";
        i.value = (*expected)["min"].get<double>();
        i.threshold = "at least " + Number(*i.value) + " (its declared expected minimum)";
      } else {
        i.op = "in_band";
        i.value = s.expected;
        i.threshold = "back inside the detector's band" +
                      (s.expected ? " around its baseline " + Number(*s.expected) : std::string()) +
                      ", judged as monitor_metrics judges it (it read " + Number(s.value) + ")";
      }
      named.insert("metric:" + name);
      plan.items.push_back(std::move(i));
    } else if (s.kind == incidents::SignalKind::kCheck && s.key.rfind("check:", 0) == 0) {
      // check:<table_ref>:<check name>; the table ref is a canonical id or the workspace's name.
      const std::string rest = s.key.substr(6);
      const config::CheckConfig* cfg = nullptr;
      std::string check;
      for (const config::CheckConfig& k : c.ws.checks)
        for (const std::string& ref : {k.asset_id, k.table})
          if (!ref.empty() && rest.rfind(ref + ":", 0) == 0) cfg = &k, check = rest.substr(ref.size() + 1);
      VerificationItem i;
      i.kind = "check";
      i.name = rest;
      i.asset = s.asset_id;
      i.failing_now = s.bad_now;
      i.op = "pass";
      i.threshold = "passes (it failed with " + Number(s.value) +
                    (s.expected ? " against " + Number(*s.expected) : std::string()) + ")";
      const std::string custom_name = check.rfind("custom:", 0) == 0 ? check.substr(7) : check;
      if (cfg != nullptr && cfg->spec.contains("custom"))
        for (const Json& custom : cfg->spec["custom"])
          if (custom.value("name", "") == custom_name && custom.contains("must_be") && custom["must_be"].is_number()) {
            i.op = "==";
            i.value = custom["must_be"].get<double>();
            i.threshold = "must be " + Number(*i.value) + " (it read " + Number(s.value) + ")";
          }
      if (check.rfind("volume", 0) == 0 && s.expected) {
        i.op = "<=";
        i.value = s.expected;
        i.threshold = "at most " + Number(*s.expected) + " rows (it read " + Number(s.value) + ")";
      }
      named.insert("check:" + rest);
      plan.items.push_back(std::move(i));
    }
  }
  // Every check on the damaged assets, passing.
  std::set<std::string> damaged(c.incident.damaged_assets.begin(), c.incident.damaged_assets.end());
  for (const config::CheckConfig& cfg : c.ws.checks) {
    if (!damaged.count(cfg.asset_id)) continue;
    VerificationItem i;
    i.kind = "check";
    i.name = cfg.table + ":*";
    i.asset = cfg.asset_id;
    i.op = "pass";
    i.threshold = "every check on " + cfg.table + " passes (run_quality_check)";
    plan.items.push_back(std::move(i));
  }
  if (plan.items.empty())
    return NotDrafted(ProposalKind::kVerificationPlan, title,
                      "the incident holds no metric or check signal and no check is configured on its damaged "
                      "assets, so there is nothing to verify the repair with");
  plan.when = "after the last step of the run plan; a failure keeps the incident open and goes to a person";
  DraftedProposal p;
  p.kind = ProposalKind::kVerificationPlan;
  p.drafted = true;
  p.title = title;
  for (const VerificationItem& i : plan.items)
    if (!i.asset.empty() && std::find(p.touches.begin(), p.touches.end(), i.asset) == p.touches.end())
      p.touches.push_back(i.asset);
  p.why = "the repair is proven by the same metrics and checks that found the damage";
  p.undo = "nothing to undo: verification only reads";
  p.content = VerificationPlanToJson(plan);
  return p;
}

}  // namespace dw::actions
