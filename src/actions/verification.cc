// Verification after the owner's fix: the incident's verification plan run now (metrics through
// the detector, checks through the quality stage), the outcome recorded, and on a pass the
// incident resolved by verification and its receipt written.
#include <algorithm>

#include "actions/approval_log.h"
#include "actions/cause_check.h"
#include "actions/receipt_content.h"
#include "observe/metrics/metric_service.h"
#include "observe/quality/quality_run.h"
#include "platforms/notify/notify.h"

namespace dw::actions {
namespace {

// "table://main/member_balances" -> "main.member_balances": how `checks:` blocks name tables.
std::string TableNameOf(const std::string& asset_id) {
  const std::string prefix = "table://";
  if (asset_id.rfind(prefix, 0) != 0) return asset_id;
  std::string rest = asset_id.substr(prefix.size());
  size_t slash = rest.find('/');
  return slash == std::string::npos ? rest : rest.substr(0, slash) + "." + rest.substr(slash + 1);
}

// A check signal's key is "check:<table asset id>:<check name>"; the asset id holds "://".
bool SplitCheckKey(const std::string& key, std::string* table, std::string* check) {
  if (key.rfind("check:", 0) != 0) return false;
  std::string rest = key.substr(6);
  size_t scheme = rest.find("://");
  size_t colon = rest.find(':', scheme == std::string::npos ? 0 : scheme + 3);
  if (colon == std::string::npos) return false;
  *table = rest.substr(0, colon);
  *check = rest.substr(colon + 1);
  return !table->empty() && !check->empty();
}

// The items of a verification_plan proposal's content ({items: [{kind, name, op, value,
// threshold}], when}): a metric's name is the series, a check's is "<table asset id>:<check>".
// Items it cannot read are left out and named in `skipped`.
std::vector<VerificationTarget> ItemsOfPlanContent(const Json& content, std::vector<std::string>* skipped) {
  std::vector<VerificationTarget> items;
  for (const Json& i : content.value("items", Json::array())) {
    VerificationTarget it;
    const std::string kind = i.is_object() ? i.value("kind", "") : "";
    const std::string name = i.is_object() ? i.value("name", "") : "";
    it.kind = kind;
    it.threshold = i.is_object() ? i.value("threshold", "") : "";
    bool ok = false;
    if (kind == "metric" && !name.empty()) {
      it.metric = name;
      it.op = i.value("op", "in_band");
      if (i.contains("value") && i["value"].is_number()) it.value = i["value"].get<double>();
      ok = it.op == "in_band" || ((it.op == "==" || it.op == "<=" || it.op == ">=") && it.value);
    } else if (kind == "check") {
      ok = SplitCheckKey("check:" + name, &it.table, &it.check);
      if (it.check == "*") it.check.clear();  // "<table>:*": every check on the table
    }
    if (ok) items.push_back(it);
    else skipped->push_back(i.dump());
  }
  return items;
}

// Runs one item now and judges it.
VerificationTargetResult RunItem(const config::Workspace& ws, store::StateStore& store,
                               const VerificationTarget& item, const Clock& clock, HttpClient* http) {
  VerificationTargetResult r;
  r.item = item;
  if (item.kind == "metric") {
    const bool is_monitor = std::any_of(ws.monitors.begin(), ws.monitors.end(),
                                        [&](const config::MonitorConfig& m) { return m.name == item.metric; });
    Result<observe::metrics::MetricJudgement> judged = Status(StatusCode::kInternal, "not judged");
    if (is_monitor) {
      judged = observe::metrics::EvaluateMonitor(ws, store, item.metric, clock,
                                                 incidents::MetricWindows(store), nullptr, http);
    } else {
      auto settings = observe::metrics::SettingsForMetric(ws, item.metric);
      judged = settings.ok() ? observe::metrics::JudgeLatestPoint(store, item.metric, *settings, clock,
                                                                  incidents::MetricWindows(store))
                             : Result<observe::metrics::MetricJudgement>(settings.status());
    }
    if (!judged.ok()) {
      r.sentence = "metric " + item.metric + " could not be judged: " + judged.status().message();
      return r;
    }
    Json j = observe::metrics::JudgementToJson(*judged);
    r.observed = HashableJson({{"value", j.value("latest_value", Json())}, {"at", j.value("latest_ts", Json())},
                               {"verdict", j.value("verdict", Json())}});
    r.threshold = HashableJson({{"expected", j.value("expected", Json())}, {"band_low", j.value("band_low", Json())},
                                {"band_high", j.value("band_high", Json())},
                                {"history_points", j.value("history_points", Json())}});
    const std::string how = std::string(is_monitor ? " (re-evaluated now)" : " (latest stored point)") + ": ";
    if (item.op != "in_band" && item.value) {
      // A stated value: the plan's own threshold ("must be 0"), compared exactly as written.
      const double v = judged->latest.value, want = *item.value;
      r.passed = item.op == "==" ? v == want : item.op == "<=" ? v <= want : v >= want;
      r.threshold["op"] = item.op;
      r.threshold["value"] = HashableJson(Json(want));
      r.sentence = "metric " + item.metric + how + HashableJson(Json(v)).dump() + (r.passed ? " " : " not ") +
                   item.op + " " + HashableJson(Json(want)).dump();
      return r;
    }
    const auto kind = judged->latest.kind;
    r.passed = kind == observe::metrics::VerdictKind::kNormal || kind == observe::metrics::VerdictKind::kExpected;
    if (kind == observe::metrics::VerdictKind::kInsufficientHistory) {
      // Too little history for a band: a monitor's declared expected range still judges the value
      // (the same hard bounds the detector applies); without one nothing can be concluded.
      auto settings = observe::metrics::SettingsForMetric(ws, item.metric);
      if (settings.ok() && (settings->detector.expected_low || settings->detector.expected_high)) {
        const double v = judged->latest.value;
        const auto& d = settings->detector;
        r.passed = (!d.expected_low || v >= *d.expected_low) && (!d.expected_high || v <= *d.expected_high);
        r.threshold["expected_low"] = d.expected_low ? HashableJson(Json(*d.expected_low)) : Json();
        r.threshold["expected_high"] = d.expected_high ? HashableJson(Json(*d.expected_high)) : Json();
        r.sentence = "metric " + item.metric + how + HashableJson(Json(v)).dump() +
                     (r.passed ? " is inside" : " is outside") +
                     " its declared expected range (too little history for a band)";
        return r;
      }
    }
    r.sentence = "metric " + item.metric + how + (r.passed ? "back inside its band" : "not inside its band") + " (" +
                 judged->latest.explanation + ")";
    return r;
  }
  observe::quality::QualityRequest req;
  req.tables = {TableNameOf(item.table)};
  req.http = http;
  Result<observe::quality::QualityReport> report = observe::quality::RunQuality(ws, &store, clock, req);
  if (!report.ok()) {
    r.sentence = "checks on " + item.table + " could not run: " + report.status().message();
    return r;
  }
  Json observed = Json::object(), threshold = Json::object();
  std::vector<std::string> failing;
  int matched = 0;
  for (const auto& t : report->tables)
    for (const auto& o : t.outcomes) {
      if (!item.check.empty() && o.name != item.check) continue;
      ++matched;
      observed[o.name] = HashableJson({{"status", observe::quality::VerdictName(o.verdict)}, {"observed", o.observed}});
      threshold[o.name] = HashableJson(o.threshold);
      // A warn-level check warns; it does not hold back a verified fix.
      if (o.verdict != observe::quality::Verdict::kPass && o.verdict != observe::quality::Verdict::kSkipped &&
          o.verdict != observe::quality::Verdict::kWarn)
        failing.push_back(o.name + " " + observe::quality::VerdictName(o.verdict) + ": " + o.message);
    }
  r.observed = observed;
  r.threshold = threshold;
  const std::string what = item.check.empty() ? "the checks on " + item.table : "check " + item.check + " on " + item.table;
  if (matched == 0) {
    r.sentence = what + " did not run (no such configured check)";
    return r;
  }
  r.passed = failing.empty();
  std::string list;
  for (const auto& f : failing) list += (list.empty() ? "" : "; ") + f;
  r.sentence = what + (r.passed ? " pass" : " fail: " + list);
  return r;
}

// Runs `item` through DispatchAutonomous (the stop switch and the domain's autonomy decide).
class ItemRunner final : public StepRunner {
 public:
  ItemRunner(const config::Workspace& ws, store::StateStore& store, const Clock& clock, HttpClient* http)
      : ws_(ws), store_(store), clock_(clock), http_(http) {}
  Result<Json> Run(const AutonomousStep&) override {
    last_ = RunItem(ws_, store_, *item_, clock_, http_);
    return Json{{"passed", last_.passed}, {"sentence", last_.sentence}};
  }
  void Set(const VerificationTarget& item) { item_ = &item; }
  const VerificationTargetResult& last() const { return last_; }

 private:
  const config::Workspace& ws_;
  store::StateStore& store_;
  const Clock& clock_;
  HttpClient* http_;
  const VerificationTarget* item_ = nullptr;
  VerificationTargetResult last_;
};

std::string ItemTarget(const VerificationTarget& i) {
  return i.kind == "metric" ? i.metric : i.table + (i.check.empty() ? "" : ":" + i.check);
}

Json ItemToJson(const VerificationTargetResult& r) {
  return {{"kind", r.item.kind},          {"target", ItemTarget(r.item)}, {"passed", r.passed},
          {"observed", r.observed},       {"threshold", r.threshold},     {"sentence", r.sentence},
          {"plan_threshold", r.item.threshold}};
}

// Records a request to the owner of one approved run-plan step (L4's queued owner run).
class OwnerRunQueue final : public StepRunner {
 public:
  OwnerRunQueue(store::StateStore& store, const Clock& clock, std::string incident)
      : store_(store), clock_(clock), incident_(std::move(incident)) {}
  Result<Json> Run(const AutonomousStep& step) override {
    Json body = step.detail;
    body["asset"] = step.target;
    Result<int64_t> seq = Record(store_, clock_, "run_queued", IncidentSubject(incident_), "dw (autonomy)", body);
    if (!seq.ok()) return seq.status();
    return Json{{"queued_for", step.detail.value("owner", "")}, {"event_seq", *seq}};
  }

 private:
  store::StateStore& store_;
  const Clock& clock_;
  std::string incident_;
};

// Posts the receipt: a `resolved` notice carrying the receipt's seq and hash (so a truncated chain
// is caught against it) to the channels the workspace routes it to.
class ReceiptPoster final : public StepRunner {
 public:
  ReceiptPoster(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                const incidents::Incident& inc, const store::ReceiptRecord& receipt)
      : ws_(ws), store_(store), clock_(clock), inc_(inc), receipt_(receipt) {}
  Result<Json> Run(const AutonomousStep&) override {
    platforms::notify::IncidentNotice n;
    n.incident_id = inc_.id;
    n.dedup_key = inc_.id;
    n.event = platforms::notify::EventKind::kResolved;
    n.severity = "SEV" + std::to_string(inc_.severity.level);
    n.domain = inc_.domain;
    n.title = inc_.title;
    n.asset = inc_.root_asset;
    n.summary = "resolved by verification; receipt " + std::to_string(receipt_.seq) + " " + receipt_.hash;
    Result<platforms::notify::EnqueueReport> r = platforms::notify::Enqueue(ws_, store_, clock_, n);
    if (!r.ok()) return r.status();
    return Json{{"queued", r->queued}, {"duplicate", r->duplicate}};
  }

 private:
  const config::Workspace& ws_;
  store::StateStore& store_;
  const Clock& clock_;
  const incidents::Incident& inc_;
  const store::ReceiptRecord& receipt_;
};

// L4: the steps of the incident's approved run plan, in plan order, queued as requests to their
// owners through the dispatch gate. A plan that is not approved queues nothing.
Status QueueApprovedRuns(store::StateStore& store, const config::Workspace& ws, const incidents::Incident& inc,
                         const Clock& clock) {
  Result<std::vector<store::ProposalRecord>> proposals = store.ProposalsOfIncident(inc.id);
  if (!proposals.ok()) return proposals.status();
  const store::ProposalRecord* plan = nullptr;
  for (const auto& p : *proposals)
    if (p.kind == "run_plan" && (plan == nullptr || p.version > plan->version)) plan = &p;
  if (plan == nullptr) return Status::Ok();
  Result<ProposalState> st = GetProposalState(store, TrustOf(ws), plan->id, plan->version, clock);
  if (!st.ok()) return st.status();
  if (st->status != ProposalStatus::kApproved) return Status::Ok();
  Json steps = plan->body.value("content", Json::object()).value("steps", Json::array());
  std::vector<Json> ordered(steps.begin(), steps.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Json& a, const Json& b) { return a.value("order", 0) < b.value("order", 0); });
  OwnerRunQueue queue(store, clock, inc.id);
  for (const Json& step : ordered) {
    AutonomousStep s;
    s.domain = inc.domain;
    s.kind = StepKind::kQueueOwnerRun;
    s.target = step.value("asset", "");
    s.detail = {{"incident", inc.id},
                {"proposal", plan->id + " v" + std::to_string(plan->version)},
                {"order", step.value("order", 0)},
                {"owner", step.value("owner", "")},
                {"action", step.value("action", "")},
                {"precondition", step.value("precondition", "")}};
    Result<DispatchOutcome> d = DispatchAutonomous(store, ws, s, queue, clock);
    if (!d.ok()) return d.status();
    if (!d->dispatched) break;  // the gate said no (recorded): the rest wait with it
  }
  return Status::Ok();
}

}  // namespace

std::string IncidentSubject(const std::string& incident_id) { return "incident:" + incident_id; }

Result<VerificationTargets> VerificationTargetsFor(store::StateStore& store, const incidents::Incident& incident) {
  Result<std::vector<store::ProposalRecord>> proposals = store.ProposalsOfIncident(incident.id);
  if (!proposals.ok()) return proposals.status();
  const store::ProposalRecord* plan = nullptr;
  for (const auto& p : *proposals)
    if (p.kind == "verification_plan" && (plan == nullptr || p.version > plan->version)) plan = &p;
  VerificationTargets out;
  if (plan != nullptr) {
    std::vector<std::string> skipped;
    out.items = ItemsOfPlanContent(plan->body.value("content", Json::object()), &skipped);
    out.source = "proposal " + plan->id + " v" + std::to_string(plan->version);
    if (out.items.empty())
      return FailedPrecondition("the verification plan " + plan->id + " v" + std::to_string(plan->version) +
                                " names no metric or check that can be run" +
                                (skipped.empty() ? "" : " (unreadable items: " + skipped.front() + ")"));
    return out;
  }
  out.source = "the signals that opened " + incident.id;
  for (const incidents::SignalRef& s : incident.signals) {
    VerificationTarget it;
    if (s.kind == incidents::SignalKind::kMetric && s.key.rfind("metric:", 0) == 0) {
      it.kind = "metric";
      it.metric = s.key.substr(7);
    } else if (s.kind == incidents::SignalKind::kCheck && SplitCheckKey(s.key, &it.table, &it.check)) {
      it.kind = "check";
    } else {
      continue;  // a change event is not something the data can be re-checked for
    }
    out.items.push_back(it);
  }
  if (out.items.empty())
    return FailedPrecondition("incident " + incident.id + " has no verification plan and holds no metric or check "
                              "signal to re-check (only change events); a person resolves it");
  return out;
}

Result<VerificationOutcome> VerifyIncident(store::StateStore& store, const config::Workspace& workspace,
                                           incidents::IncidentDesk& desk, const std::string& given_id,
                                           const VerifyOptions& options, const Clock& clock) {
  // The desk accepts an id abbreviated to a prefix one incident alone has: whatever is recorded
  // (a refusal included) names the incident's full id, whichever surface asked.
  Result<incidents::Incident> inc = desk.Get(given_id);
  const std::string incident_id = inc.ok() ? inc->id : given_id;
  const std::string subject = IncidentSubject(incident_id);
  const std::string actor = options.actor.empty() ? "dw" : options.actor;
  auto refuse = [&](const Status& why) -> Result<VerificationOutcome> {
    Result<int64_t> seq = Record(store, clock, "refused", subject, actor, {{"action", "verify"}, {"reason", why.message()}});
    if (!seq.ok()) return seq.status();
    return why;
  };
  if (!inc.ok()) {
    if (inc.status().code() == StatusCode::kNotFound) return refuse(inc.status());
    return inc.status();
  }
  if (inc->status == incidents::IncidentStatus::kResolved || inc->status == incidents::IncidentStatus::kClosed)
    return refuse(FailedPrecondition("incident " + incident_id + " is already " +
                                     incidents::IncidentStatusName(inc->status) + "; there is nothing to verify"));
  Result<VerificationTargets> plan = VerificationTargetsFor(store, *inc);
  if (!plan.ok()) {
    if (plan.status().code() == StatusCode::kFailedPrecondition) return refuse(plan.status());
    return plan.status();
  }

  VerificationOutcome out;
  out.incident_id = incident_id;
  out.plan_source = plan->source;
  ItemRunner runner(workspace, store, clock, options.http);
  for (const VerificationTarget& item : plan->items) {
    if (!options.autonomous) {
      out.items.push_back(RunItem(workspace, store, item, clock, options.http));
      continue;
    }
    AutonomousStep step;
    step.domain = inc->domain;
    step.kind = item.kind == "metric" ? StepKind::kReevaluateMetric : StepKind::kRerunCheck;
    step.target = ItemTarget(item);
    step.detail = {{"incident", incident_id}};
    runner.Set(item);
    Result<DispatchOutcome> d = DispatchAutonomous(store, workspace, step, runner, clock);
    if (!d.ok()) return d.status();
    if (!d->dispatched) {
      out.summary = "verification of " + incident_id + " not run: " + d->reason;
      return out;  // the refusal is recorded by DispatchAutonomous; nothing concluded
    }
    out.items.push_back(runner.last());
  }
  out.ran = true;
  out.passed = std::all_of(out.items.begin(), out.items.end(), [](const auto& r) { return r.passed; });
  Json items = Json::array();
  std::string failed;
  for (const auto& r : out.items) {
    items.push_back(ItemToJson(r));
    if (!r.passed) failed += (failed.empty() ? "" : "; ") + r.sentence;
  }
  out.summary = out.passed ? "verified " + incident_id + ": " + std::to_string(out.items.size()) +
                                 " item(s) of " + plan->source + " pass"
                           : "verification of " + incident_id + " failed: " + failed;
  if (out.passed) {
    // The data is back; the cause must be gone too, or the next run breaks it again.
    Result<CauseCheck> cause =
        CheckCauseGone(store, TrustOf(workspace), incident_id, options.current_flow_revision, clock);
    if (!cause.ok()) return cause.status();
    if (cause->live) {
      out.cause_live = cause->sentence;
      out.summary = "the data of " + incident_id + " passes " + std::to_string(out.items.size()) + " item(s) of " +
                    plan->source + ", but the cause is still live: " + cause->sentence + "; the incident stays mitigated";
    } else if (!cause->note.empty()) {
      out.cause_note = cause->note;
      out.summary += "; the cause is gone: " + cause->note;
    }
  }
  Json body = {{"passed", out.passed}, {"plan", plan->source}, {"items", items}, {"summary", out.summary}};
  if (!out.cause_live.empty()) {
    // Mitigated, not resolved: the incident, the record of why and (once per incident) the ask to
    // its people commit together.
    body["cause_live"] = out.cause_live;
    DW_RETURN_IF_ERROR(store.InTransaction([&](store::StateStore& tx) -> Status {
      Result<int64_t> seq = Record(tx, clock, "cause_still_live", subject, actor, body);
      if (!seq.ok()) return seq.status();
      out.event_seq = *seq;
      if (inc->status == incidents::IncidentStatus::kMitigated) return Status::Ok();
      incidents::IncidentDesk in_tx(tx, static_cast<const graph::ContextGraph*>(nullptr), clock,
                                    incidents::DeskOptionsFor(workspace));
      Result<incidents::Incident> mitigated = in_tx.Mitigate(incident_id, actor, out.summary);
      if (!mitigated.ok()) return mitigated.status();
      auto n = incidents::NoticeOf(workspace, *mitigated, platforms::notify::EventKind::kAttentionRequested, out.summary);
      n.revision = "cause-live";
      return incidents::EnqueueNotice(workspace, tx, clock, n);
    }));
    return out;
  }
  if (!out.passed) {
    // A failed verification goes to a person: the incident's owner and its domain's owners are
    // named on the action log, and the attention_requested notice (to the domain's owners, its
    // approvers copied, per notify.routes) is written to the outbox in the same transaction, so
    // neither exists without the other.
    DW_RETURN_IF_ERROR(store.InTransaction([&](store::StateStore& tx) -> Status {
      Result<int64_t> seq = Record(tx, clock, "verification_failed", subject, actor, body);
      if (!seq.ok()) return seq.status();
      out.event_seq = *seq;
      std::vector<std::string> people;
      if (!inc->owner.empty()) people.push_back(inc->owner);
      if (const config::DomainConfig* d = FindDomain(workspace, inc->domain))
        for (const auto& o : d->owners)
          if (std::find(people.begin(), people.end(), o) == people.end()) people.push_back(o);
      Json ask = {{"people", people}, {"why", out.summary}, {"verification_seq", *seq}};
      if (people.empty())
        ask["note"] = "no owner is named for the incident or its domain '" + inc->domain +
                      "' (assets: owner, domains.<d>.owners): whoever watches the incident list";
      Result<int64_t> asked = Record(tx, clock, "attention_requested", subject, actor, ask);
      if (!asked.ok()) return asked.status();
      auto n = incidents::NoticeOf(workspace, *inc, platforms::notify::EventKind::kAttentionRequested, out.summary);
      n.revision = std::to_string(*seq);  // each failed verification asks again
      return incidents::EnqueueNotice(workspace, tx, clock, n);
    }));
    return out;
  }
  // The passed verification, the runs it queues and the resolution commit together: a
  // `verified` event on an incident left unresolved (a kill between two commits) would make the
  // "verify" job count the mitigation as verified and never verify it again, and a rerun would
  // queue the owners' runs twice. The resolution is written through a desk on the transaction's
  // store, so it joins the transaction whatever store `desk` was opened on.
  Result<incidents::Incident> resolved = Status(StatusCode::kInternal, "not resolved");
  DW_RETURN_IF_ERROR(store.InTransaction([&](store::StateStore& tx) -> Status {
    Result<int64_t> seq = Record(tx, clock, "verified", subject, actor, body);
    if (!seq.ok()) return seq.status();
    out.event_seq = *seq;
    // At L4 (autonomous follow-up) the approved downstream runs are queued to their owners first,
    // so the receipt records them; below L4 the gate refuses and records that.
    if (options.autonomous) DW_RETURN_IF_ERROR(QueueApprovedRuns(tx, workspace, *inc, clock));
    incidents::IncidentDesk in_tx(tx, static_cast<const graph::ContextGraph*>(nullptr), clock,
                                  incidents::DeskOptionsFor(workspace));
    resolved = in_tx.ResolveByVerification(incident_id, out.summary);
    return resolved.status();
  }));
  out.resolved = true;
  Result<std::vector<std::string>> written = WriteResolutionReceipts(store, workspace, desk, clock);
  if (!written.ok()) return written.status();
  Result<std::optional<store::ReceiptRecord>> receipt = ReceiptOfIncident(store, incident_id);
  if (!receipt.ok()) return receipt.status();
  out.receipt = *receipt;
  if (options.autonomous && out.receipt) {
    ReceiptPoster poster(workspace, store, clock, *resolved, *out.receipt);
    AutonomousStep post{inc->domain, StepKind::kPostReceipt, "receipt " + std::to_string(out.receipt->seq),
                        {{"incident", incident_id}, {"hash", out.receipt->hash}}};
    Result<DispatchOutcome> d = DispatchAutonomous(store, workspace, post, poster, clock);
    if (!d.ok()) return d.status();
  }
  return out;
}

}  // namespace dw::actions
