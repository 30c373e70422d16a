// Drafting an incident's proposals and storing them as versions: the one entry the surfaces
// (`remediate`, `dw incidents propose`, the replay) call.
#include <algorithm>
#include <set>

#include "actions/approval_log.h"
#include "actions/drafting.h"
#include "base/rfc3339.h"

namespace dw::actions {
namespace {

std::string DomainOf(const config::Workspace& ws, const incidents::Incident& incident,
                     const graph::GraphIndex& index, const std::string& cause_asset) {
  if (!incident.domain.empty()) return incident.domain;
  graph::AssetIndex a = index.Find(cause_asset);
  if (a != graph::kNone && index.asset(a).domain != 0) return index.str(index.asset(a).domain);
  return ws.domains.size() == 1 ? ws.domains.begin()->first : "";
}

// The stored content of a proposal: its kind's content with what every proposal says beside it.
Json StoredContent(const DraftedProposal& p) {
  Json c = p.content.is_object() ? p.content : Json::object();
  c["title"] = p.title;
  c["touches"] = p.touches;
  c["why"] = p.why;
  c["evidence"] = p.evidence;
  c["undo"] = p.undo;
  return c;
}

}  // namespace

Result<ProposalSet> DraftIncidentProposals(const config::Workspace& workspace, store::StateStore& store,
                                           const graph::GraphIndex& index, const incidents::Incident& incident,
                                           const incidents::Diagnosis& diagnosis, const Clock& clock,
                                           const DraftOptions& options) {
  if (diagnosis.ranked.empty())
    return FailedPrecondition("incident " + incident.id + " has no ranked cause (" + diagnosis.summary +
                              "): there is nothing to draft a fix for; diagnose it again once change events "
                              "are collected");
  const incidents::Candidate& cause = diagnosis.ranked.front();
  DraftContext c{workspace, store, index, incident, diagnosis, clock, options, cause};
  ProposalSet set;
  set.incident_id = incident.id;
  set.cause_kind = cause.cause_kind;
  set.cause_asset = cause.asset_id;
  set.domain = DomainOf(workspace, incident, index, cause.asset_id);
  DraftedProposal hold = DraftHold(c);
  // Customer-facing consumers stay held until the repair is verified, so the run plan leaves them
  // out; a held feeder (a dbt job's schedule) is still rerun by hand in the plan.
  std::vector<std::string> held;
  if (hold.drafted)
    for (const Json& t : hold.content["targets"])
      if (t.value("customer_facing", false)) held.push_back(t.value("consumer", ""));
  set.proposals.push_back(std::move(hold));
  const std::string kind = KindOf(cause.asset_id);
  if (kind == "flink") {
    set.proposals.push_back(DraftFlinkDiff(c));
  } else if (kind == "kestra") {
    // A saved revision behind the damage is undone (roll back to the revision it replaced); a
    // flow whose run went wrong without a new revision is fixed from its execution's evidence.
    // When the rollback cannot be drafted, the fix from the execution is tried, and the rollback's
    // reason is kept if neither can be.
    DraftedProposal fix = CauseIsFlowRevision(c) ? DraftKestraRollback(c) : DraftKestraFlowFix(c);
    if (!fix.drafted && CauseIsFlowRevision(c)) {
      DraftedProposal from_execution = DraftKestraFlowFix(c);
      if (from_execution.drafted) {
        from_execution.why += " (no rollback of the revision was drafted: " + fix.not_drafted + ")";
        fix = std::move(from_execution);
      }
    }
    set.proposals.push_back(std::move(fix));
  } else {
    set.notes.push_back("the top cause is on " + cause.asset_id + " (" + kind +
                        "): Data Workers drafts diffs for FlinkDeployment manifests and Kestra flows only, so the "
                        "fix itself is the owner's to write");
  }
  set.proposals.push_back(DraftRunPlan(c, held));
  set.proposals.push_back(DraftVerificationPlan(c));
  return set;
}

Result<ProposeOutcome> ProposeForIncident(const config::Workspace& workspace, store::StateStore& store,
                                          const graph::ContextGraph* graph, const std::string& given_id,
                                          const Clock& clock, const DraftOptions& options) {
  const DecisionTrust trust = TrustOf(workspace);
  incidents::IncidentDesk desk(store, graph, clock, incidents::DeskOptionsFor(workspace));
  // The desk accepts an abbreviated id; what is stored is named after the incident's full id.
  Result<incidents::Incident> incident = desk.Get(given_id);
  if (!incident.ok()) return incident.status();
  const std::string incident_id = incident->id;
  Result<incidents::Diagnosis> diagnosis = desk.Diagnose(incident_id);
  if (!diagnosis.ok()) return diagnosis.status();
  auto draft = [&](const graph::GraphIndex& index) {
    return DraftIncidentProposals(workspace, store, index, *incident, *diagnosis, clock, options);
  };
  graph::GraphIndex empty;
  Result<ProposalSet> set = graph != nullptr ? graph->Read(draft) : draft(empty);
  if (!set.ok()) return set.status();
  ProposeOutcome out;
  out.set = *set;
  const config::DomainConfig* domain = nullptr;
  if (auto d = workspace.domains.find(set->domain); d != workspace.domains.end()) domain = &d->second;
  Result<Autonomy> level = domain ? ParseAutonomy(domain->autonomy) : Result<Autonomy>(Autonomy::kL1);
  std::vector<size_t> to_send;  // indices into out.stored of the versions to send for approval
  for (const DraftedProposal& p : set->proposals) {
    StoredProposal s;
    s.proposal = p;
    if (!p.drafted) {
      s.status = "not_drafted";
      s.sending = "nothing stored or sent: " + p.not_drafted;
      out.stored.push_back(std::move(s));
      continue;
    }
    s.id = incident_id + "-" + ProposalKindName(p.kind);
    const Json content = StoredContent(p);
    Result<ProposalState> newest = GetProposalState(store, trust, s.id, 0, clock);
    if (!newest.ok() && newest.status().code() != StatusCode::kNotFound) return newest.status();
    if (newest.ok() && newest->record.body.contains("content") && newest->record.body["content"] == content) {
      s.version = newest->record.version;  // the same draft again: no new version
    } else {
      ProposalDraft d{s.id, incident_id, set->domain, ProposalKindName(p.kind), options.author, content};
      Result<store::ProposalRecord> rec = StoreProposal(store, d, clock);
      if (!rec.ok()) return rec.status();
      s.version = rec->version;
      s.new_version = true;
    }
    Result<ProposalState> st = GetProposalState(store, trust, s.id, s.version, clock);
    if (!st.ok()) return st.status();
    if (domain == nullptr) {
      s.sending = "not sent: the incident's domain '" + set->domain + "' is not defined in the workspace (domains:)";
    } else if (!level.ok()) {
      s.sending = "not sent: " + level.status().message();
    } else if (*level < Autonomy::kL2) {
      s.sending = "not sent: domain " + set->domain + " is at autonomy " + domain->autonomy +
                  " (L1 observes: proposals are drafted, not sent; L2 and above send them for approval)";
    } else if (st->status != ProposalStatus::kDrafted) {
      s.sending = std::string("already ") + ProposalStatusName(st->status) + " (version " + std::to_string(s.version) +
                  " was sent before; a sent version never changes)";
    } else {
      to_send.push_back(out.stored.size());  // sent below, with the others of this pass
    }
    s.status = ProposalStatusName(st->status);
    out.stored.push_back(std::move(s));
  }
  if (to_send.empty()) return out;
  // The proposals of one pass reach the approvers as one request (one message per channel, naming
  // every proposal that waits), written in one transaction with the requests themselves. A pass
  // that only sends newer versions of proposals the approvers were already asked about writes no
  // message: the earlier one names the same proposals, and whatever an approver opens to decide
  // shows (and signs) the newest version. So a night of revisions is one message, not one a pass.
  bool asks_anew = false;
  for (size_t i : to_send) {
    Result<std::vector<store::ActionEventRecord>> log = store.ActionEvents(ProposalSubject(out.stored[i].id));
    if (!log.ok()) return log.status();
    asks_anew |= std::none_of(log->begin(), log->end(), [](const store::ActionEventRecord& e) { return e.kind == "sent"; });
  }
  std::vector<store::ProposalRecord> sent_records;
  std::optional<ApprovalRequestView> request;
  Status written = store.InTransaction([&](store::StateStore& tx) -> Status {
    for (size_t i : to_send) {
      StoredProposal& s = out.stored[i];
      Result<ApprovalRequestView> sent = SendForApprovalWith(tx, workspace, s.id, clock, options.author, false);
      if (!sent.ok()) {
        s.sending = "not sent: " + sent.status().message();
        continue;
      }
      std::string who;
      for (const std::string& a : sent->approvers) who += (who.empty() ? "" : ", ") + a;
      Result<ProposalState> st = GetProposalState(tx, trust, s.id, s.version, clock);
      if (!st.ok()) return st.status();
      // "Sent" only when a channel carries the request: without one the request is recorded and
      // pending, and nobody is told (it would expire unseen), so the line says that instead.
      Result<std::vector<std::string>> channels = ApprovalRequestChannels(tx, workspace, st->record);
      if (!channels.ok()) return channels.status();
      std::string via;
      for (const std::string& c : *channels) via += (via.empty() ? "" : ", ") + c;
      const std::string until = who + " until " + FormatRfc3339(sent->expires_at);
      s.sending = via.empty() ? "recorded for " + until +
                                    "; no notification channel routes it, so nobody is told (add notify: to the "
                                    "workspace; until then they decide with dw approve or on the desk)"
                              : "sent to " + until + " via " + via;
      sent_records.push_back(st->record);
      if (request) {
        // One message for the set: it names, and is sent to, everyone any of the requests asks.
        std::vector<ApprovalParty> parties = request->parties;
        for (const ApprovalParty& p : sent->parties)
          if (std::none_of(parties.begin(), parties.end(), [&](const ApprovalParty& q) { return q.people == p.people; }))
            parties.push_back(p);
        ApprovalRequestView merged = *sent;
        merged.parties = parties;
        merged.approvers = PartyPeople(parties);
        request = merged;
      } else {
        request = *sent;
      }
    }
    if (sent_records.empty() || !asks_anew) return Status::Ok();
    // The message names every proposal of the incident that waits for a decision, not only the
    // ones sent now, so the newest message (or Slack's edited one) is the whole request.
    std::vector<store::ProposalRecord> waiting;
    Result<std::vector<store::ProposalRecord>> all = tx.ProposalsOfIncident(incident_id);
    if (!all.ok()) return all.status();
    std::set<std::string> ids;
    for (const auto& p : *all) ids.insert(p.id);
    for (const auto& id : ids) {
      Result<ProposalState> st = GetProposalState(tx, trust, id, 0, clock);
      if (!st.ok()) return st.status();
      if (st->status == ProposalStatus::kPending) waiting.push_back(st->record);
    }
    return NotifyProposal(tx, workspace, clock, sent_records.front(), platforms::notify::EventKind::kApprovalRequested,
                          ApprovalSetSummary(waiting.empty() ? sent_records : waiting, *request), nullptr,
                          request->approvers);
  });
  if (!written.ok()) return written;
  for (size_t i : to_send) {
    Result<ProposalState> st = GetProposalState(store, trust, out.stored[i].id, out.stored[i].version, clock);
    if (!st.ok()) return st.status();
    out.stored[i].status = ProposalStatusName(st->status);
  }
  return out;
}

Json ProposeOutcomeToJson(const ProposeOutcome& o) {
  Json proposals = Json::array();
  for (const StoredProposal& s : o.stored) {
    const DraftedProposal& p = s.proposal;
    Json j = {{"kind", ProposalKindName(p.kind)}, {"drafted", p.drafted}, {"title", p.title},
              {"id", s.id},     {"version", s.version},  {"new_version", s.new_version},
              {"status", s.status}, {"sending", s.sending}};
    if (p.drafted) {
      j["touches"] = p.touches;
      j["why"] = p.why;
      j["evidence"] = p.evidence;
      j["undo"] = p.undo;
      j["content"] = p.content;
    } else {
      j["not_drafted"] = p.not_drafted;
    }
    proposals.push_back(std::move(j));
  }
  return {{"incident_id", o.set.incident_id},
          {"domain", o.set.domain},
          {"cause", {{"kind", o.set.cause_kind}, {"asset", o.set.cause_asset}}},
          {"proposals", proposals},
          {"notes", o.set.notes}};
}

}  // namespace dw::actions
