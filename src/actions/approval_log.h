// Internal to actions/: recording action events and reading a proposal's state from them.
#pragma once

#include <string>
#include <vector>

#include "actions/actions.h"
#include "platforms/notify/notify.h"

namespace dw::actions {

// The event log subject of the decision audit's findings (RaiseRejectedDecisions).
inline constexpr const char* kDecisionFindingsSubject = "decisions";

// The event log subject of a proposal.
std::string ProposalSubject(const std::string& proposal_id);

// Appends an event of `kind` about `subject` by `actor` at now; returns its seq.
Result<int64_t> Record(store::StateStore& store, const Clock& clock, const std::string& kind,
                       const std::string& subject, const std::string& actor, Json body,
                       const std::string& nonce = "");

// The parties a request for `rec` needs (ApprovalRequestView::parties): `domain_party` first, then
// the owner of each asset the proposal holds, pauses or changes (kinds hold, flink_deployment_diff,
// kestra_flow_diff; content.touches): the hold target's owner, else the asset note's owner, else
// the approvers of the asset note's domain. Parties with the same people are one.
std::vector<ApprovalParty> RequestParties(const config::Workspace& workspace, const store::ProposalRecord& rec,
                                          ApprovalParty domain_party);
// Every person of `parties`, in order, once.
std::vector<std::string> PartyPeople(const std::vector<ApprovalParty>& parties);

// The domain named `name` in `workspace`, or nullptr.
const config::DomainConfig* FindDomain(const config::Workspace& workspace, const std::string& name);

}  // namespace dw::actions

namespace dw::actions {

// Writes the notice of `event` (approval_requested, escalated, approved) about proposal `rec` to
// the outbox of `store` (call it inside the transaction that records the event): the notice of
// its incident, its domain's approvers (escalate_to for an escalation) as recipients, `summary`
// as what is proposed, deduplicated per proposal version. A proposal without an incident, or a
// workspace without notify:, writes nothing. The store's error on failure.
// "Proposal P v1 (hold): <content.summary>. Waits for approval by a, b until <time> (...)".
std::string ApprovalSummary(const store::ProposalRecord& rec, const ApprovalRequestView& req);
// The summary of several proposals sent together in one request (ApprovalSummary for one):
// "3 proposals wait for approval by a: P1 v1 (hold): ...; P2 v1 (...): ... (the newest request
// expires at <time>; ...)".
std::string ApprovalSetSummary(const std::vector<store::ProposalRecord>& recs, const ApprovalRequestView& req);

// SendForApproval; with `notify` false the approvers' notice is left to the caller, who sends
// one for the proposals it sends together (ProposeForIncident), in the same transaction.
Result<ApprovalRequestView> SendForApprovalWith(store::StateStore& store, const config::Workspace& workspace,
                                                const std::string& proposal_id, const Clock& clock,
                                                const std::string& actor, bool notify);

// The notification channels an approval request for `rec` (or, with `event` kEscalated, its
// escalation) goes to (ChannelsCarrying): empty when the workspace tells nobody, which is said
// instead of "sent" or "escalated to".
Result<std::vector<std::string>> ApprovalRequestChannels(
    store::StateStore& store, const config::Workspace& workspace, const store::ProposalRecord& rec,
    platforms::notify::EventKind event = platforms::notify::EventKind::kApprovalRequested);

// With `request` (an approval request or its escalation), the notice also says how to decide: a
// signed approval link per approver the request names (not the author; recorded as link_issued
// events, without a token) when the workspace has desk.url, and the CLI command in any case.
// Everyone in `asked` (the people of the requests a set of proposals was sent with) is a direct
// recipient too; with `request`, its approvers are.
Status NotifyProposal(store::StateStore& store, const config::Workspace& workspace, const Clock& clock,
                      const store::ProposalRecord& rec, platforms::notify::EventKind event,
                      const std::string& summary, const ApprovalRequestView* request = nullptr,
                      const std::vector<std::string>& asked = {});

}  // namespace dw::actions
