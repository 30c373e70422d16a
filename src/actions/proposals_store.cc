// Proposal versions and their approval requests: storing a version, sending it for approval,
// expiring and escalating requests, and reading the state of a version back from the event log.
#include <algorithm>
#include <map>

#include "actions/approval_log.h"
#include "config/duration.h"

namespace dw::actions {

std::string ProposalSubject(const std::string& proposal_id) { return "proposal:" + proposal_id; }

Result<int64_t> Record(store::StateStore& store, const Clock& clock, const std::string& kind,
                       const std::string& subject, const std::string& actor, Json body,
                       const std::string& nonce) {
  store::ActionEventRecord e;
  e.at = clock.Now();
  e.kind = kind;
  e.subject = subject;
  e.actor = actor;
  e.nonce = nonce;
  e.body = std::move(body);
  return store.AppendActionEvent(e);
}

const config::DomainConfig* FindDomain(const config::Workspace& workspace,
                                       const std::string& name) {
  auto it = workspace.domains.find(name);
  return it == workspace.domains.end() ? nullptr : &it->second;
}

const char* ProposalStatusName(ProposalStatus s) {
  switch (s) {
    case ProposalStatus::kDrafted: return "drafted";
    case ProposalStatus::kPending: return "pending";
    case ProposalStatus::kApproved: return "approved";
    case ProposalStatus::kDenied: return "denied";
    case ProposalStatus::kExpired: return "expired";
    case ProposalStatus::kSuperseded: return "superseded";
  }
  return "unknown";
}

Result<store::ProposalRecord> StoreProposal(store::StateStore& store, const ProposalDraft& draft,
                                            const Clock& clock) {
  if (draft.id.empty()) return InvalidArgument("a proposal needs an id");
  if (draft.kind.empty()) return InvalidArgument("proposal " + draft.id + " needs a kind");
  if (draft.author.empty()) return InvalidArgument("proposal " + draft.id + " needs an author");
  store::ProposalRecord rec;
  Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
    Result<std::vector<store::ProposalRecord>> versions = tx.ProposalVersions(draft.id);
    if (!versions.ok()) return versions.status();
    rec.id = draft.id;
    rec.version = versions->empty() ? 1 : versions->back().version + 1;
    rec.incident_id = draft.incident_id;
    rec.kind = draft.kind;
    rec.body = {{"author", draft.author},
                {"domain", draft.domain},
                {"content", draft.content}};
    DW_RETURN_IF_ERROR(tx.AddProposal(rec));
    return Record(tx, clock, "drafted", ProposalSubject(draft.id), draft.author,
                  {{"version", rec.version}, {"kind", draft.kind}})
        .status();
  });
  if (!s.ok()) return s;
  rec.created_at = clock.Now();
  return rec;
}

namespace {

ApprovalRequestView RequestFrom(const Json& body) {
  ApprovalRequestView r;
  r.round = body.value("round", int64_t{1});
  r.approvers = body.value("approvers", std::vector<std::string>{});
  r.expires_at = FromUnixMillis(body.value("expires_at_ms", int64_t{0}));
  for (const Json& p : body.value("parties", Json::array()))
    if (p.is_object()) r.parties.push_back({p.value("role", ""), p.value("people", std::vector<std::string>{})});
  return r;
}

Json PartiesJson(const std::vector<ApprovalParty>& parties) {
  Json out = Json::array();
  for (const ApprovalParty& p : parties) out.push_back({{"role", p.role}, {"people", p.people}});
  return out;
}

// The parties of `request` no one in `approved` has approved for.
std::vector<ApprovalParty> Awaiting(const ApprovalRequestView& request, const std::vector<std::string>& approved) {
  std::vector<ApprovalParty> out;
  for (const ApprovalParty& p : request.parties)
    if (std::none_of(p.people.begin(), p.people.end(), [&](const std::string& who) {
          return std::find(approved.begin(), approved.end(), who) != approved.end();
        }))
      out.push_back(p);
  return out;
}

// ": <what it does>" in a sentence for a notice: the content's summary, else its title and, for a
// hold, what it holds ("" when the content says neither).
std::string ProposalGist(const store::ProposalRecord& rec) {
  const Json content = rec.body.value("content", Json::object());
  if (!content.is_object()) return "";
  if (content.contains("summary") && content["summary"].is_string()) return ": " + content["summary"].get<std::string>();
  std::string s = content.value("title", "");
  std::string held;
  for (const Json& t : content.value("targets", Json::array()))
    if (t.is_object() && t.contains("consumer") && t["consumer"].is_string())
      held += (held.empty() ? "" : ", ") + t["consumer"].get<std::string>();
  if (!held.empty()) s += (s.empty() ? "" : " (") + held + (s.empty() ? "" : ")");
  return s.empty() ? "" : ": " + s;
}

}  // namespace

std::string ApprovalSummary(const store::ProposalRecord& rec, const ApprovalRequestView& req) {
  std::string who;
  for (const std::string& a : req.approvers) who += (who.empty() ? "" : ", ") + a;
  std::string s = "Proposal " + rec.id + " v" + std::to_string(rec.version) + " (" + rec.kind + ")";
  s += ProposalGist(rec);
  if (req.parties.size() > 1) who = PartiesPhrase(req.parties);
  s += (req.round > 1 ? ". Escalated: waits for approval by " : ". Waits for approval by ") + who +
       " until " + FormatRfc3339(req.expires_at) + " (dw approve " + rec.id + ")";
  return s;
}

Result<ProposalState> GetProposalState(store::StateStore& store, const DecisionTrust& trust,
                                       const std::string& proposal_id, int64_t version, const Clock& clock) {
  Result<std::vector<store::ProposalRecord>> versions = store.ProposalVersions(proposal_id);
  if (!versions.ok()) return versions.status();
  if (versions->empty()) return NotFound("there is no proposal " + proposal_id);
  ProposalState st;
  st.newest_version = versions->back().version;
  if (version == 0) version = st.newest_version;
  auto it = std::find_if(versions->begin(), versions->end(),
                         [&](const store::ProposalRecord& p) { return p.version == version; });
  if (it == versions->end())
    return NotFound("proposal " + proposal_id + " has no version " + std::to_string(version) +
                    " (newest is " + std::to_string(st.newest_version) + ")");
  st.record = *it;
  Result<std::vector<store::ActionEventRecord>> events =
      store.ActionEvents(ProposalSubject(proposal_id));
  if (!events.ok()) return events.status();
  bool decided = false, request_closed = false;
  for (const store::ActionEventRecord& e : *events) {
    if (e.body.value("version", int64_t{0}) != version) continue;
    if (e.kind == "sent" || e.kind == "escalated") {
      st.request = RequestFrom(e.body);
      request_closed = false;
    } else if (e.kind == "expired" || e.kind == "lapsed") {
      request_closed = true;
    } else if ((e.kind == "approved" || e.kind == "denied") && !decided) {
      // Checked here, where every use of a decision reads it: a row that does not verify is
      // listed, never counted.
      if (Status v = VerifyRecordedDecision(e, proposal_id, trust, clock.Now()); !v.ok()) {
        st.rejected.push_back({e.seq, e.kind, e.actor, v.message(), v.code() == StatusCode::kPermissionDenied, proposal_id});
        continue;
      }
      const std::string reason = e.body.value("reason", "");
      if (e.kind == "approved") {
        st.approved_by.push_back(e.actor);
        st.decided_by += (st.decided_by.empty() ? "" : " and ") + e.actor;
        if (!reason.empty()) st.decision_reason += (st.decision_reason.empty() ? "" : "; ") + reason;
        // Approved once every party of the request has approved (one approver for a request
        // stored before parties).
        if (st.request && !Awaiting(*st.request, st.approved_by).empty()) continue;
        st.status = ProposalStatus::kApproved;
      } else {
        st.status = ProposalStatus::kDenied;  // one party's denial decides
        st.decided_by = e.actor;
        st.decision_reason = reason;
      }
      decided = true;
      st.decision_surface = e.body.value("surface", "");
      st.decided_at = e.at;
    }
  }
  if (st.request) st.awaiting = Awaiting(*st.request, st.approved_by);
  if (decided) {
    st.awaiting.clear();
    return st;
  }
  if (version < st.newest_version) {
    st.status = ProposalStatus::kSuperseded;
  } else if (st.request) {
    st.status = request_closed || clock.Now() >= st.request->expires_at ? ProposalStatus::kExpired
                                                                        : ProposalStatus::kPending;
  }
  return st;
}

std::string ApprovalSetSummary(const std::vector<store::ProposalRecord>& recs, const ApprovalRequestView& req) {
  if (recs.size() == 1) return ApprovalSummary(recs.front(), req);
  std::string who;
  for (const std::string& a : req.approvers) who += (who.empty() ? "" : ", ") + a;
  if (req.parties.size() > 1) who = PartiesPhrase(req.parties);
  std::string s = std::to_string(recs.size()) + " proposals wait for approval by " + who + ":";
  for (size_t i = 0; i < recs.size(); ++i) {
    s += (i ? "; " : " ") + recs[i].id + " v" + std::to_string(recs[i].version) + " (" + recs[i].kind + ")";
    s += ProposalGist(recs[i]);
  }
  return s + " (the newest request expires at " + FormatRfc3339(req.expires_at) +
         "; dw approve ID, one decision per proposal)";
}

Result<ApprovalRequestView> SendForApproval(store::StateStore& store,
                                            const config::Workspace& workspace,
                                            const std::string& proposal_id, const Clock& clock,
                                            const std::string& actor) {
  return SendForApprovalWith(store, workspace, proposal_id, clock, actor, true);
}

Result<ApprovalRequestView> SendForApprovalWith(store::StateStore& store,
                                                const config::Workspace& workspace,
                                                const std::string& proposal_id, const Clock& clock,
                                                const std::string& actor, bool notify) {
  Result<ProposalState> st = GetProposalState(store, TrustOf(workspace), proposal_id, 0, clock);
  if (!st.ok()) return st.status();
  const std::string subject = ProposalSubject(proposal_id);
  const int64_t version = st->record.version;
  auto refuse = [&](Status why) -> Result<ApprovalRequestView> {
    Result<int64_t> rec = Record(store, clock, "refused", subject, actor,
                                 {{"version", version}, {"action", "send"}, {"reason", why.message()}});
    if (!rec.ok()) return rec.status();
    return why;
  };
  const std::string domain_name = st->record.body.value("domain", "");
  const config::DomainConfig* domain = FindDomain(workspace, domain_name);
  if (domain == nullptr)
    return refuse(FailedPrecondition("proposal " + proposal_id + " belongs to domain '" +
                                     domain_name + "', which the workspace does not define"));
  Result<Autonomy> level = ParseAutonomy(domain->autonomy);
  if (!level.ok()) return refuse(level.status());
  if (*level < Autonomy::kL2)
    return refuse(FailedPrecondition("domain " + domain_name + " is at autonomy " +
                                     domain->autonomy +
                                     ": proposals are drafted but not sent (L2 and above send)"));
  if (st->status != ProposalStatus::kDrafted)
    return refuse(FailedPrecondition("proposal " + proposal_id + " version " +
                                     std::to_string(version) + " is already " +
                                     ProposalStatusName(st->status)));
  const Json& content = st->record.body.contains("content") ? st->record.body["content"] : Json();
  if (content.is_object() && content.contains("diff") && content.contains("file")) {
    // A diff whose file moved on since the draft is a conflict: redraft, never send it blind.
    Status applies = CheckDiffStillApplies(content);
    if (!applies.ok()) return refuse(FailedPrecondition(applies.message()));
  }
  if (domain->approvers.empty())
    return refuse(FailedPrecondition("domain " + domain_name +
                                     " names no approvers (domains." + domain_name + ".approvers)"));
  Result<std::chrono::milliseconds> ttl = config::ParseDuration(domain->approval_ttl);
  if (!ttl.ok() || ttl->count() <= 0)
    return refuse(FailedPrecondition("domain " + domain_name + " has no usable approval_ttl ('" +
                                     domain->approval_ttl + "')"));
  const std::vector<ApprovalParty> parties =
      RequestParties(workspace, st->record, {"the approvers of domain " + domain_name, domain->approvers});
  ApprovalRequestView req{1, PartyPeople(parties), clock.Now() + *ttl, parties};
  // The request and its notice to the approvers are written together: never one without the other.
  Status sent = store.InTransaction([&](store::StateStore& tx) -> Status {
    Result<int64_t> rec = Record(tx, clock, "sent", subject, actor,
                                 {{"version", version},
                                  {"round", req.round},
                                  {"approvers", req.approvers},
                                  {"parties", PartiesJson(req.parties)},
                                  {"ttl_ms", static_cast<int64_t>(ttl->count())},
                                  {"expires_at_ms", ToUnixMillis(req.expires_at)}});
    if (!rec.ok()) return rec.status();
    if (!notify) return Status::Ok();
    return NotifyProposal(tx, workspace, clock, st->record, platforms::notify::EventKind::kApprovalRequested,
                          ApprovalSummary(st->record, req), &req);
  });
  if (!sent.ok()) return sent;
  return req;
}

Result<std::vector<std::string>> ExpireApprovalRequests(store::StateStore& store,
                                                        const config::Workspace& workspace,
                                                        const Clock& clock) {
  std::vector<std::string> said;
  // Only the proposals whose newest request is not yet followed by a draft or a close: the sweep
  // runs every watch pass, and reading the whole log made it grow with every decision ever taken.
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEventsOfOpenRequests();
  if (!events.ok()) return events.status();
  // One pass over their events: per proposal, its newest version and that version's last request.
  struct Open {
    int64_t newest = 0;
    const store::ActionEventRecord* request = nullptr;  // of the newest version
    bool closed = false;                                // expired or decided
  };
  std::map<std::string, Open> open;
  std::vector<std::string> order;  // proposals in the order they were first drafted
  for (const store::ActionEventRecord& e : *events) {
    if (e.subject.rfind("proposal:", 0) != 0) continue;
    const std::string id = e.subject.substr(9);
    const int64_t v = e.body.value("version", int64_t{0});
    auto [it, fresh] = open.try_emplace(id);
    if (fresh) order.push_back(id);
    Open& o = it->second;
    if (e.kind == "drafted" && v > o.newest) o = Open{v, nullptr, false};
    if (v != o.newest) continue;
    if (e.kind == "sent" || e.kind == "escalated") o.request = &e, o.closed = false;
    if (e.kind == "expired" || e.kind == "lapsed" || e.kind == "approved" || e.kind == "denied") o.closed = true;
    // An approval that left parties waiting is followed by `awaiting`: the request is still open.
    if (e.kind == "awaiting") o.closed = false;
  }
  const TimePoint now = clock.Now();
  const DecisionTrust trust = TrustOf(workspace);
  for (const std::string& id : order) {
    const Open& o = open[id];
    if (o.request == nullptr || o.closed ||
        now < FromUnixMillis(o.request->body.value("expires_at_ms", int64_t{0})))
      continue;
    Result<ProposalState> st = GetProposalState(store, trust, id, o.newest, clock);
    if (!st.ok()) return st.status();
    if (st->status != ProposalStatus::kExpired || !st->request) continue;
    const store::ActionEventRecord* last_request = o.request;
    const int64_t version = st->record.version;
    const std::string who = "dw (approval_ttl)";
    Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
      DW_RETURN_IF_ERROR(Record(tx, clock, "expired", ProposalSubject(id), who,
                                {{"version", version}, {"round", st->request->round}})
                             .status());
      std::string line = "proposal " + id + " v" + std::to_string(version) + ": round " +
                         std::to_string(st->request->round) + " expired unanswered";
      const config::DomainConfig* domain =
          FindDomain(workspace, st->record.body.value("domain", ""));
      if (st->request->round == 1 && domain != nullptr && !domain->escalate_to.empty()) {
        int64_t ttl_ms = last_request->body.value("ttl_ms", int64_t{0});
        TimePoint expires = clock.Now() + std::chrono::milliseconds(ttl_ms);
        // escalate_to stands in for the domain's approvers; an owner still unasked-for stays asked.
        std::vector<ApprovalParty> parties = {{"escalate_to of domain " + st->record.body.value("domain", ""),
                                               domain->escalate_to}};
        for (size_t i = 1; i < st->request->parties.size(); ++i) parties.push_back(st->request->parties[i]);
        const ApprovalRequestView round2{2, PartyPeople(parties), expires, parties};
        DW_RETURN_IF_ERROR(Record(tx, clock, "escalated", ProposalSubject(id), who,
                                  {{"version", version},
                                   {"round", 2},
                                   {"approvers", round2.approvers},
                                   {"parties", PartiesJson(round2.parties)},
                                   {"ttl_ms", ttl_ms},
                                   {"expires_at_ms", ToUnixMillis(expires)}})
                               .status());
        DW_RETURN_IF_ERROR(NotifyProposal(tx, workspace, clock, st->record, platforms::notify::EventKind::kEscalated,
                                          ApprovalSummary(st->record, round2), &round2));
        // "Escalated" only when a channel carries the escalation: without one it is recorded and
        // nobody is told, and the line says so.
        Result<std::vector<std::string>> channels =
            ApprovalRequestChannels(tx, workspace, st->record, platforms::notify::EventKind::kEscalated);
        if (!channels.ok()) return channels.status();
        std::string via;
        for (const std::string& c : *channels) via += (via.empty() ? "" : ", ") + c;
        const std::string to = domain->escalate_to.front() + (domain->escalate_to.size() > 1 ? " and others" : "") +
                               " until " + FormatRfc3339(expires);
        line += via.empty() ? "; escalation to " + to +
                                  " recorded; no notification channel routes it, so nobody is told (add notify: to "
                                  "the workspace; until then they decide with dw approve or on the desk)"
                            : "; escalated to " + to + " via " + via;
      } else {
        line += "; nowhere further to escalate: not approved";
      }
      said.push_back(std::move(line));
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  return said;
}

}  // namespace dw::actions
