// Signed approval links: issuing one for a pending proposal version, and the link key (see actions.h).
// The token's signing and reading are in approval_token.cc.
#include <algorithm>
#include <cstdlib>

#include "actions/actions.h"
#include "actions/approval_log.h"
#include "actions/identity.h"
#include "base/redaction.h"

namespace dw::actions {

Result<std::string> IssueApprovalLink(store::StateStore& store, const DecisionTrust& trust,
                                      const std::string& proposal_id, const std::string& approver,
                                      const std::string& key, const Clock& clock) {
  auto st = GetProposalState(store, trust, proposal_id, 0, clock);
  if (!st.ok()) return st.status();
  const std::string pv = proposal_id + " v" + std::to_string(st->record.version);
  if (!st->rejected.empty()) return PermissionDenied(st->rejected.front().reason + "; no link is issued");
  if (st->status != ProposalStatus::kPending || !st->request)
    return FailedPrecondition(pv + " is " + ProposalStatusName(st->status) + ", not waiting for a decision");
  const auto& approvers = st->request->approvers;
  if (std::find(approvers.begin(), approvers.end(), approver) == approvers.end())
    return FailedPrecondition(approver + " is not an approver of " + pv);
  if (st->record.body.value("author", "") == approver)
    return FailedPrecondition(approver + " wrote " + pv + " and cannot decide it");
  ApprovalLink link{approver, proposal_id, st->record.version, st->request->expires_at, NewNonce()};
  if (link.nonce.empty()) return Internal("the random number generator failed");
  auto token = SignApprovalLink(link, key);
  if (!token.ok()) return token.status();
  Json body = {{"version", link.version}, {"approver", approver}, {"expires_at", FormatRfc3339(link.expires_at)}};
  auto seq = Record(store, clock, "link_issued", ProposalSubject(proposal_id), approver, body);
  if (!seq.ok()) return seq.status();
  return token;
}

}  // namespace dw::actions

namespace dw::actions {

std::string ApprovalLinkKeyFromEnvironment() {
  const char* k = std::getenv("DW_APPROVAL_LINK_KEY");
  if (k == nullptr || *k == '\0') return "";
  RegisterSecret(k);
  return k;
}

platforms::notify::ApprovalLinkSigner ApprovalLinkSignerFor(const std::string& key) {
  if (key.empty()) return {};
  return [key](const platforms::notify::ApprovalLinkSpec& l) -> Result<std::string> {
    return SignApprovalLink({l.approver, l.proposal_id, l.version, FromUnixMillis(l.expires_at_ms), l.nonce}, key);
  };
}

}  // namespace dw::actions
