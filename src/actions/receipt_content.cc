// The receipt written when an incident resolves: what caused it, what it reached, what was
// proposed and decided (who, when, through which surface), what ran, what was checked and how to
// undo it. Written once per incident, through the hash chain (WriteReceipt).
#include "actions/receipt_content.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

#include "actions/approval_log.h"

namespace dw::actions {
namespace {

constexpr int kResolvedSweepLimit = 200;
// Every incident resolved this recently is swept too, whenever it was opened: the newest-opened
// 200 alone missed an old incident resolved after 200 later ones were (its receipt was never
// written, found by the crash test of receipts on resolve).
constexpr auto kRecentResolutions = std::chrono::hours(24 * 7);

std::string Rfc(TimePoint t) { return FormatRfc3339(t); }

// The undo a proposal's content carries: every key that names an undo or a savepoint.
Json UndoOf(const Json& content) {
  Json undo = Json::object();
  if (!content.is_object()) return undo;
  for (const auto& [k, v] : content.items())
    if (k.find("undo") != std::string::npos || k.find("savepoint") != std::string::npos ||
        k == "file" || k == "base_sha256" || k == "hold_bad_release")
      undo[k] = v;
  return undo;
}

// The incident resolved: requests still open on its proposals lapse (recorded), so nobody is
// asked, or escalated to, about a repair that is already verified or decided by a person.
Status LapseOpenRequests(store::StateStore& store, const DecisionTrust& trust, const std::string& incident_id,
                         const Clock& clock) {
  Result<std::vector<store::ProposalRecord>> proposals = store.ProposalsOfIncident(incident_id);
  if (!proposals.ok()) return proposals.status();
  std::map<std::string, int64_t> newest;
  for (const auto& p : *proposals) newest[p.id] = std::max(newest[p.id], p.version);
  for (const auto& [id, version] : newest) {
    Result<ProposalState> st = GetProposalState(store, trust, id, version, clock);
    if (!st.ok()) return st.status();
    if (st->status != ProposalStatus::kPending) continue;
    DW_RETURN_IF_ERROR(Record(store, clock, "lapsed", ProposalSubject(id), "dw",
                              {{"version", version}, {"reason", "incident " + incident_id + " resolved"}})
                           .status());
  }
  return Status::Ok();
}

}  // namespace

Json HashableJson(const Json& value) {
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (!std::isfinite(d)) return Json();
    if (d == std::floor(d) && std::fabs(d) < 9e15) return Json(static_cast<int64_t>(d));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    return Json(std::string(buf));
  }
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return Json(std::to_string(value.get<uint64_t>()));
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& v : value) out.push_back(HashableJson(v));
    return out;
  }
  if (value.is_object()) {
    Json out = Json::object();
    for (const auto& [k, v] : value.items()) out[k] = HashableJson(v);
    return out;
  }
  return value;
}

Result<Json> ResolutionReceiptContent(store::StateStore& store, const DecisionTrust& trust,
                                      incidents::IncidentDesk& desk, const std::string& incident_id,
                                      const Clock& clock) {
  Result<incidents::Incident> inc = desk.Get(incident_id);
  if (!inc.ok()) return inc.status();
  if (inc->status != incidents::IncidentStatus::kResolved)
    return FailedPrecondition("incident " + incident_id + " is " + incidents::IncidentStatusName(inc->status) +
                              "; a receipt is written when it resolves");
  const incidents::Transition& last = inc->transitions.back();
  Json incident = {{"id", inc->id},
                   {"title", inc->title},
                   {"domain", inc->domain},
                   {"owner", inc->owner},
                   {"root_asset", inc->root_asset},
                   {"damaged_assets", inc->damaged_assets},
                   {"opened_at", Rfc(inc->opened_at)},
                   {"first_bad_at", Rfc(inc->first_bad_at)},
                   {"resolved_at", Rfc(last.at)},
                   {"resolved_by", last.actor},
                   {"how", last.actor == "dw" ? "verification" : "person"},
                   {"reason", last.reason},
                   {"severity", "SEV" + std::to_string(inc->severity.level)}};

  // Cause, evidence and the blast radius as the diagnosis gives them now.
  Json cause = {{"kind", inc->cause_kind}, {"asset", inc->cause_asset}};
  Json blast = Json::object();
  Result<incidents::Diagnosis> d = desk.Diagnose(incident_id);
  if (d.ok()) {
    if (!d->ranked.empty()) {
      const incidents::Candidate& top = d->ranked.front();
      cause = {{"kind", top.cause_kind.empty() ? top.kind : top.cause_kind},
               {"change", top.kind},
               {"asset", top.asset_id},
               {"happened_at", Rfc(top.happened_at)},
               {"explanation", top.explanation},
               {"evidence", top.evidence},
               {"path", top.path}};
    }
    cause["summary"] = d->summary;
    blast = HashableJson(d->blast_radius);
  } else {
    cause["note"] = "the diagnosis could not be run when the receipt was written: " + d.status().message();
  }

  // Each proposal version with its request and decision.
  Result<std::vector<store::ProposalRecord>> proposals = store.ProposalsOfIncident(incident_id);
  if (!proposals.ok()) return proposals.status();
  Json listed = Json::array(), undo = Json::array();
  std::map<std::string, int64_t> newest;
  for (const auto& p : *proposals) newest[p.id] = std::max(newest[p.id], p.version);
  for (const auto& p : *proposals) {
    Result<ProposalState> st = GetProposalState(store, trust, p.id, p.version, clock);
    if (!st.ok()) return st.status();
    Json entry = {{"id", p.id},
                  {"version", p.version},
                  {"kind", p.kind},
                  {"author", p.body.value("author", "")},
                  {"status", ProposalStatusName(st->status)}};
    if (st->request)
      entry["request"] = {{"round", st->request->round},
                          {"approvers", st->request->approvers},
                          {"parties", PartiesPhrase(st->request->parties)},
                          {"expires_at", Rfc(st->request->expires_at)}};
    if (st->decided_at)
      entry["decision"] = {{"by", st->decided_by},
                           {"at", Rfc(*st->decided_at)},
                           {"surface", st->decision_surface},
                           {"verdict", st->status == ProposalStatus::kApproved ? "approve" : "deny"},
                           {"reason", st->decision_reason}};
    for (const RejectedDecision& r : st->rejected)
      entry["rejected_decisions"].push_back({{"event", r.seq}, {"row", r.kind}, {"person", r.person}, {"why", r.reason}});
    const Json content = p.body.value("content", Json::object());
    entry["content"] = HashableJson(content);
    listed.push_back(entry);
    Json u = UndoOf(content);
    if (p.version == newest[p.id] && !u.empty())
      undo.push_back({{"proposal", p.id}, {"version", p.version}, {"kind", p.kind}, {"undo", HashableJson(u)}});
  }

  // The runs: autonomous steps dispatched for this incident, owner runs queued, and what the
  // platforms recorded on the incident's assets between its opening and its resolution.
  Json runs = Json::array();
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEvents(IncidentSubject(incident_id));
  if (!events.ok()) return events.status();
  Json checks = Json::object();
  for (const auto& e : *events) {
    if (e.kind == "run_queued" || e.kind == "dispatched")
      runs.push_back({{"at", Rfc(e.at)}, {"kind", e.kind}, {"by", e.actor}, {"detail", HashableJson(e.body)}});
    if (e.kind == "verified" || e.kind == "verification_failed")
      checks = {{"at", Rfc(e.at)},
                {"by", e.actor},
                {"passed", e.kind == "verified"},
                {"plan", e.body.value("plan", "")},
                {"items", HashableJson(e.body.value("items", Json::array()))}};
  }
  if (!inc->domain.empty()) {
    Result<std::vector<store::ActionEventRecord>> steps = store.ActionEvents("domain:" + inc->domain);
    if (!steps.ok()) return steps.status();
    for (const auto& e : *steps)
      if (e.kind == "dispatched" && e.body.contains("detail") && e.body["detail"].value("incident", "") == incident_id)
        runs.push_back({{"at", Rfc(e.at)}, {"kind", e.kind}, {"by", e.actor}, {"detail", HashableJson(e.body)}});
  }
  std::set<std::string> assets(inc->damaged_assets.begin(), inc->damaged_assets.end());
  if (!inc->root_asset.empty()) assets.insert(inc->root_asset);
  if (!inc->cause_asset.empty()) assets.insert(inc->cause_asset);
  Json platform_runs = Json::array();
  for (const std::string& a : assets) {
    auto changes = store.ChangeEventsFor(a, inc->first_bad_at, last.at + std::chrono::milliseconds(1));
    if (!changes.ok()) return changes.status();
    for (const auto& c : *changes)
      platform_runs.push_back({{"asset", c.asset_id}, {"kind", c.kind}, {"happened_at", Rfc(c.happened_at)},
                               {"reason", c.reason}});
  }

  return Json{{"kind", "incident_resolved"},
              {"incident", incident},
              {"cause", cause},
              {"blast_radius", blast},
              {"proposals", listed},
              {"runs", {{"steps", runs}, {"observed_on_platforms", platform_runs}}},
              {"checks", checks},
              {"undo", undo}};
}

Result<std::optional<store::ReceiptRecord>> ReceiptOfIncident(store::StateStore& store,
                                                              const std::string& incident_id) {
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEvents(kReceiptsSubject);
  if (!events.ok()) return events.status();
  for (const auto& e : *events) {
    if (e.kind != "receipt_written" || e.body.value("incident", "") != incident_id) continue;
    Result<std::optional<store::ReceiptRecord>> r = store.GetReceipt(e.body.value("seq", int64_t{0}));
    if (!r.ok()) return r.status();
    if (r->has_value() && (*r)->hash == e.body.value("hash", "")) return r;
    return NotFound("the receipt " + std::to_string(e.body.value("seq", int64_t{0})) + " recorded for incident " +
                    incident_id + " is missing or does not match its recorded hash");
  }
  return std::optional<store::ReceiptRecord>();
}

Result<std::vector<std::string>> WriteResolutionReceipts(store::StateStore& store,
                                                         const config::Workspace& workspace,
                                                         incidents::IncidentDesk& desk,
                                                         const Clock& clock) {
  std::vector<std::string> said;
  // Ids only: nearly every resolved incident has its receipt, and decoding each one every pass
  // was most of a short run's work (the receipts' crash test, profiled).
  Result<std::vector<std::string>> resolved =
      store.IncidentIdsToSweep(incidents::IncidentStatusName(incidents::IncidentStatus::kResolved),
                               kResolvedSweepLimit, clock.Now() - kRecentResolutions);
  if (!resolved.ok()) return resolved.status();
  if (resolved->empty()) return said;
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEvents(kReceiptsSubject);
  if (!events.ok()) return events.status();
  std::set<std::string> done;
  for (const auto& e : *events)
    if (e.kind == "receipt_written") done.insert(e.body.value("incident", ""));
  const DecisionTrust trust = TrustOf(workspace);
  for (const std::string& id : *resolved) {
    if (done.count(id)) continue;
    DW_RETURN_IF_ERROR(LapseOpenRequests(store, trust, id, clock));
    Result<Json> content = ResolutionReceiptContent(store, trust, desk, id, clock);
    if (!content.ok()) return content.status();
    // The receipt and the record that it was written go in one transaction: a crash between
    // them cannot leave an incident with two receipts or a record without its receipt.
    std::optional<store::ReceiptRecord> written;
    Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
      Result<std::vector<store::ActionEventRecord>> again = tx.ActionEvents(kReceiptsSubject);
      if (!again.ok()) return again.status();
      for (const auto& e : *again)
        if (e.kind == "receipt_written" && e.body.value("incident", "") == id) return Status::Ok();
      Result<store::ReceiptRecord> r = WriteReceipt(tx, *content, clock);
      if (!r.ok()) return r.status();
      written = *r;
      DW_RETURN_IF_ERROR(NotifyResolved(tx, workspace, clock, id, *r));
      return Record(tx, clock, "receipt_written", kReceiptsSubject, "dw",
                    {{"incident", id}, {"seq", r->seq}, {"hash", r->hash}})
          .status();
    });
    if (!s.ok()) return s;
    if (written)
      said.push_back("receipt " + std::to_string(written->seq) + " " + written->hash + " for incident " + id);
  }
  return said;
}

}  // namespace dw::actions
