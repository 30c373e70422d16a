// Decide(): the one place a person's decision on a proposal is checked and counted.
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

#include "actions/agent_mark_proposal.h"
#include "actions/approval_log.h"
#include "actions/identity.h"
#include "actions/receipt_anchor.h"

namespace dw::actions {
namespace {

std::string Replayed(const char* proof_name) {
  return std::string(proof_name) == "signed_link" ? "the approval link was already used (a link decides once)"
                                                   : "the statement's nonce was already used (a replayed signature)";
}

}  // namespace

const char* VerdictName(Verdict v) { return v == Verdict::kApprove ? "approve" : "deny"; }

DecisionStatement NewStatement(const std::string& person, const std::string& proposal_id,
                               int64_t version, Verdict verdict, const std::string& reason,
                               const Clock& clock) {
  return {person, proposal_id, version, verdict, reason, clock.Now(), NewNonce()};
}

std::string StatementBytes(const DecisionStatement& s) {
  Json j = {{"statement", "data-workers decision v1"},
            {"person", s.person},
            {"proposal", s.proposal_id},
            {"version", s.version},
            {"decision", VerdictName(s.verdict)},
            {"reason", s.reason},
            {"at_ms", ToUnixMillis(s.at)},
            {"nonce", s.nonce}};
  Result<std::string> bytes = CanonicalJson(j);
  // Only invalid UTF-8 fails; such a statement signs and verifies as a marker that never matches
  // a real signature's bytes.
  return bytes.ok() ? *bytes : std::string("invalid statement");
}

namespace {

// Checks how the person proved they made the statement; returns why not, or nullopt, and adds to
// `recorded` what the decision's row carries so that the proof can be checked again wherever the
// decision is used (the public key it verified with, or the desk's seal).
using ProofCheck = std::function<Result<std::optional<std::string>>(store::StateStore&, Json* recorded)>;

Result<DecisionOutcome> DecideInTransaction(store::StateStore& store, const DecisionTrust& trust,
                                            const DecisionRequest& request, const Clock& clock,
                                            const ProofCheck& prove, const char* proof_name) {
  const DecisionStatement& s = request.statement;
  const std::string subject = s.proposal_id.empty() ? "proposal:?" : ProposalSubject(s.proposal_id);
  Json who = {{"version", s.version},
              {"person", s.person},
              {"decision", VerdictName(s.verdict)},
              {"surface", request.surface}};
  // Every refusal is recorded, with the statement's identity fields and the reason.
  auto refuse = [&](const std::string& reason) -> Result<DecisionOutcome> {
    Json body = who;
    body["action"] = "decide";
    body["reason"] = reason;
    Result<int64_t> seq = Record(store, clock, "refused", subject, s.person, body);
    if (!seq.ok()) return seq.status();
    return DecisionOutcome{false, reason, *seq};
  };

  // Who: the surface and the identity.
  if (request.surface == "mcp")
    return refuse("decisions are never taken over MCP: agents draft proposals, people decide");
  if (request.surface != "cli" && request.surface != "scenario" && request.surface != "web")
    return refuse("unknown surface '" + request.surface + "'");
  if (IsAgentIdentity(s.person)) return refuse("'" + s.person + "' is an agent; agents never decide");
  if (!LooksLikePersonEmail(s.person)) return refuse("'" + s.person + "' is not a person's email");

  // Proof: the person's key signed exactly this statement, or a signed link names them; then
  // once, recently.
  Json recorded = Json::object();
  Result<std::optional<std::string>> unproven = prove(store, &recorded);
  if (!unproven.ok()) return unproven.status();
  if (*unproven) return refuse(**unproven);
  if (s.nonce.size() < 16) return refuse("the statement's nonce is missing or too short");
  Result<std::vector<store::ActionEventRecord>> earlier = store.ActionEvents(subject);
  if (!earlier.ok()) return earlier.status();
  for (const store::ActionEventRecord& e : *earlier)
    if (e.nonce == s.nonce)
      return refuse(Replayed(proof_name));
  const TimePoint now = clock.Now();
  if (s.at > now + kStatementSkew || s.at < now - kStatementSkew)
    return refuse("the statement was signed at " + FormatRfc3339(s.at) +
                  ", more than 10 minutes from now (" + FormatRfc3339(now) + ")");
  // Time only runs forward in the record: a clock set back (a --now, a skewed machine) cannot
  // reopen a request that expired, or decide before what the log already holds.
  for (const store::ActionEventRecord& e : *earlier)
    if (e.at > now + kStatementSkew)
      return refuse("the clock reads " + FormatRfc3339(now) + ", before " + s.proposal_id + "'s '" + e.kind +
                    "' recorded at " + FormatRfc3339(e.at) + " (action event " + std::to_string(e.seq) +
                    "): a decision is never dated before the record it follows");

  // What: the proposal version and its request.
  Result<ProposalState> st = GetProposalState(store, trust, s.proposal_id, s.version, clock);
  if (!st.ok()) {
    if (st.status().code() != StatusCode::kNotFound) return st.status();
    return refuse(st.status().message());
  }
  const std::string pv = s.proposal_id + " v" + std::to_string(s.version);
  // A decision row that does not verify is never decided over: it is raised, and a person looks.
  if (!st->rejected.empty())
    return refuse(pv + " already has a decision that does not verify (action event " +
                  std::to_string(st->rejected.front().seq) + ", " + st->rejected.front().person.substr(0, 120) +
                  "); nothing more is decided on it until that is looked into");
  switch (st->status) {
    case ProposalStatus::kDrafted: return refuse(pv + " was never sent for approval");
    case ProposalStatus::kSuperseded:
      return refuse(pv + " is superseded by version " + std::to_string(st->newest_version));
    case ProposalStatus::kApproved:
    case ProposalStatus::kDenied:
      return refuse(pv + " was already " + ProposalStatusName(st->status) + " by " +
                    st->decided_by + "; a decision is final");
    case ProposalStatus::kExpired:
      return refuse(pv + "'s approval request expired at " +
                    FormatRfc3339(st->request->expires_at));
    case ProposalStatus::kPending: break;
  }
  // Authority: named in the open request, and not the author.
  const std::vector<std::string>& approvers = st->request->approvers;
  if (std::find(approvers.begin(), approvers.end(), s.person) == approvers.end())
    return refuse(s.person + " is not an approver of " + pv + " (round " +
                  std::to_string(st->request->round) + " asks " +
                  (approvers.empty() ? std::string("nobody") : approvers.front()) +
                  (approvers.size() > 1 ? " and others" : "") + ")");
  if (st->record.body.value("author", "") == s.person)
    return refuse(s.person + " wrote " + pv + " and cannot decide it");
  if (s.verdict == Verdict::kDeny && s.reason.empty())
    return refuse("a denial needs a reason");
  if (std::find(st->approved_by.begin(), st->approved_by.end(), s.person) != st->approved_by.end())
    return refuse(s.person + " already approved " + pv + "; it waits for " + PartiesPhrase(st->awaiting));
  // The parties still waiting once this approval counts (it stands for every party it is in).
  std::vector<ApprovalParty> still;
  for (const ApprovalParty& p : st->awaiting)
    if (std::find(p.people.begin(), p.people.end(), s.person) == p.people.end()) still.push_back(p);

  Json body = who;
  body["reason"] = s.reason;
  body["round"] = st->request->round;
  body["signed_at_ms"] = ToUnixMillis(s.at);
  body["proof"] = proof_name;
  if (IsSimulatedClock(clock)) body[kSimulatedClockKey] = "simulated";
  if (!request.signature.empty()) body["signature"] = request.signature;
  for (const auto& [k, v] : recorded.items()) body[k] = v;
  const char* kind = s.verdict == Verdict::kApprove ? "approved" : "denied";
  Result<int64_t> seq = Record(store, clock, kind, subject, s.person, body, s.nonce);
  if (!seq.ok()) {
    if (seq.status().code() == StatusCode::kAlreadyExists)
      return refuse(Replayed(proof_name));
    return seq.status();
  }
  std::string said = std::string(kind) + " " + pv + " by " + s.person;
  // A mark an agent asked for is applied by the approval that completes it, in its transaction,
  // with the approver as its author (agent_mark_proposal.h).
  if (s.verdict == Verdict::kApprove && still.empty() && st->record.kind == kMarkExpectedKind) {
    Result<int64_t> mark = ApplyApprovedMark(store, st->record, s.person);
    if (!mark.ok()) return mark.status();
    Result<int64_t> applied = Record(store, clock, "applied", subject, s.person,
                                     {{"version", s.version}, {"mark", *mark}});
    if (!applied.ok()) return applied.status();
    said += "; marked " + st->record.body["content"].value("metric", "") + " expected (mark " +
            std::to_string(*mark) + ", by " + s.person + ")";
  }
  if (s.verdict == Verdict::kApprove && !still.empty()) {
    said += "; it still waits for " + PartiesPhrase(still);
    // The request stays open for the other parties (and expires and escalates as any open one):
    // recorded, so the expiry sweep, which takes an approval as closing a request, still sees it.
    Result<int64_t> open = Record(store, clock, "awaiting", subject, "dw",
                                  {{"version", s.version}, {"round", st->request->round},
                                   {"waits_for", PartiesPhrase(still)}});
    if (!open.ok()) return open.status();
  }
  return DecisionOutcome{true, said, *seq};
}

}  // namespace

namespace {

// One transaction: two decisions on one version cannot both see it pending. With a workspace, an
// accepted approval writes its `approved` notice to the outbox in the same transaction.
Result<DecisionOutcome> DecideOnce(store::StateStore& store, const config::Workspace* workspace,
                                   const DecisionTrust& trust, const DecisionRequest& request,
                                   const Clock& clock, const ProofCheck& prove, const char* proof_name) {
  std::optional<Result<DecisionOutcome>> out;
  Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
    out = DecideInTransaction(tx, trust, request, clock, prove, proof_name);
    if (!out->ok()) return out->status();
    if (workspace == nullptr || !(*out)->accepted || request.statement.verdict != Verdict::kApprove)
      return Status::Ok();
    const DecisionStatement& st = request.statement;
    Result<ProposalState> p = GetProposalState(tx, trust, st.proposal_id, st.version, clock);
    if (!p.ok()) return p.status();
    // Approved is said once every party has approved, not at each party's approval.
    if (p->status != ProposalStatus::kApproved) return Status::Ok();
    return NotifyProposal(tx, *workspace, clock, p->record, platforms::notify::EventKind::kApproved,
                          "Proposal " + st.proposal_id + " v" + std::to_string(st.version) + " (" +
                              p->record.kind + ") approved by " + p->decided_by +
                              (p->decision_reason.empty() ? "" : ": " + p->decision_reason));
  });
  if (!s.ok()) return s;
  return std::move(*out);
}

// The person's stored key signed exactly this statement, and the workspace declares that key for
// them: the store alone (a swapped key) makes nobody an approver.
ProofCheck BySignature(const DecisionRequest& request, const DecisionTrust& trust) {
  return [&request, &trust](store::StateStore& tx, Json* recorded) -> Result<std::optional<std::string>> {
    const DecisionStatement& s = request.statement;
    Result<std::optional<store::PersonKeyRecord>> key = tx.GetPersonKey(s.person);
    if (!key.ok()) return key.status();
    if (!key->has_value())
      return std::optional<std::string>("no key is issued for " + s.person + " (dw keys issue " + s.person + ")");
    const std::string fingerprint = KeyFingerprint((*key)->public_key_pem);
    if (!KeyDeclaredFor(trust, s.person, fingerprint))
      return std::optional<std::string>("the key stored for " + s.person + " (" + fingerprint.substr(0, 23) +
                                        "...) is not declared under people." + s.person +
                                        ".keys in the workspace: a key counts once the workspace file names it");
    if (!SignatureVerifies(StatementBytes(s), request.signature, (*key)->public_key_pem))
      return std::optional<std::string>("the signature does not verify with " + s.person + "'s key (forged or altered)");
    (*recorded)["public_key"] = (*key)->public_key_pem;
    return std::optional<std::string>();
  };
}

}  // namespace

Result<DecisionOutcome> Decide(store::StateStore& store, const DecisionTrust& trust,
                               const DecisionRequest& request, const Clock& clock) {
  return DecideOnce(store, nullptr, trust, request, clock, BySignature(request, trust), "signature");
}

Result<DecisionOutcome> Decide(store::StateStore& store, const config::Workspace& workspace,
                               const DecisionRequest& request, const Clock& clock) {
  const DecisionTrust trust = TrustOf(workspace);
  return DecideOnce(store, &workspace, trust, request, clock, BySignature(request, trust), "signature");
}

namespace {

// A refusal where nobody can be named (a link that does not verify, an identity not vouched for).
Result<DecisionOutcome> RefuseUnnamed(store::StateStore& store, const Clock& clock, const std::string& subject,
                                      const std::string& surface, const char* proof, const std::string& reason) {
  Result<int64_t> seq = Record(store, clock, "refused", subject, "unknown",
                               Json{{"action", "decide"}, {"surface", surface}, {"proof", proof}, {"reason", reason}});
  if (!seq.ok()) return seq.status();
  return DecisionOutcome{false, reason, *seq};
}

Result<DecisionOutcome> DecideByLinkWith(store::StateStore& store, const config::Workspace* workspace,
                                         const LinkDecision& decision, const std::string& key, const Clock& clock) {
  Result<ApprovalLink> link = ReadApprovalLink(decision.token, key);
  if (!link.ok())
    return RefuseUnnamed(store, clock, "proposal:?", decision.surface, "signed_link", link.status().message());
  DecisionRequest request;
  request.statement = {link->approver, link->proposal_id, link->version, decision.verdict, decision.reason,
                       clock.Now(), link->nonce};
  request.surface = decision.surface;
  const TimePoint expires_at = link->expires_at;
  const std::string approver = link->approver;
  const DecisionTrust trust = workspace != nullptr ? TrustOf(*workspace, key) : DecisionTrust{{}, key};
  ProofCheck by_link = [&](store::StateStore&, Json* recorded) -> Result<std::optional<std::string>> {
    if (decision.surface != "web")
      return std::optional<std::string>("an approval link is honoured only on the desk's page (surface web)");
    if (clock.Now() >= expires_at)
      return std::optional<std::string>("the approval link expired at " + FormatRfc3339(expires_at));
    // Behind the sign-in proxy the person is known: a link is theirs only.
    if (workspace != nullptr) {
      Result<std::string> person = TrustedProxyPerson(*workspace, decision.via);
      if (person.ok() && *person != approver)
        return std::optional<std::string>("this approval link is for " + approver + ", but the sign-in proxy names " +
                                          *person + ": a link decides only for its own approver");
    }
    (*recorded)["seal"] = DecisionSeal(key, "signed_link", request.statement);
    return std::optional<std::string>();
  };
  return DecideOnce(store, workspace, trust, request, clock, by_link, "signed_link");
}

}  // namespace

Result<DecisionOutcome> DecideByLink(store::StateStore& store, const LinkDecision& decision, const std::string& key,
                                     const Clock& clock) {
  return DecideByLinkWith(store, nullptr, decision, key, clock);
}

Result<DecisionOutcome> DecideByLink(store::StateStore& store, const config::Workspace& workspace,
                                     const LinkDecision& decision, const std::string& key, const Clock& clock) {
  return DecideByLinkWith(store, &workspace, decision, key, clock);
}

Result<DecisionOutcome> DecideAsProxiedPerson(store::StateStore& store, const config::Workspace& workspace,
                                              const ProxyDecision& decision, const std::string& desk_key,
                                              const Clock& clock) {
  Result<std::string> person = TrustedProxyPerson(workspace, decision.identity);
  const std::string subject = decision.proposal_id.empty() ? "proposal:?" : ProposalSubject(decision.proposal_id);
  if (!person.ok())
    return RefuseUnnamed(store, clock, subject, decision.surface, "trusted_proxy",
                         person.status().code() == StatusCode::kNotFound
                             ? "no identity: the request carries no X-Forwarded-Email from a trusted proxy"
                             : person.status().message());
  DecisionRequest request;
  request.statement = NewStatement(*person, decision.proposal_id, decision.version, decision.verdict, decision.reason, clock);
  request.surface = decision.surface;
  if (request.statement.nonce.empty()) return Internal("the random number generator failed");
  const DecisionTrust trust = TrustOf(workspace, desk_key);
  ProofCheck by_proxy = [&](store::StateStore&, Json* recorded) -> Result<std::optional<std::string>> {
    if (decision.surface != "web")
      return std::optional<std::string>("a proxy's identity is honoured only on the desk's page (surface web)");
    // The proxy's word leaves no proof of its own: the desk seals the statement, or it could not
    // be told from a row written into the store by hand.
    if (desk_key.empty())
      return std::optional<std::string>("the desk has no key to seal a decision with (DW_APPROVAL_LINK_KEY is not set)");
    (*recorded)["seal"] = DecisionSeal(desk_key, "trusted_proxy", request.statement);
    return std::optional<std::string>();
  };
  return DecideOnce(store, &workspace, trust, request, clock, by_proxy, "trusted_proxy");
}

}  // namespace dw::actions
