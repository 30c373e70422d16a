// A range of a metric marked expected, asked for by an agent (monitor_metrics' mark_expected). A
// mark silences its monitor over the range, so it is never an agent's to make: the request is
// stored as a proposal of kind "mark_expected" and sent to the approvers of the metric's domain,
// and only when a person's approval completes it (Decide, "cli", "web" or "scenario") is the mark
// stored, with that person as its author. Nothing the agent can call applies it.
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "config/workspace.h"
#include "store/state_store.h"

namespace dw::actions {

inline constexpr const char* kMarkExpectedKind = "mark_expected";

struct MarkProposalRequest {
  std::string metric;
  int64_t from_ms = 0;       // inclusive
  int64_t to_ms = 0;         // inclusive
  std::string note;          // why, in the agent's words (at most 500 characters)
  std::string incident_id;   // the incident it is about, "" when none (then no notice is sent)
  std::string agent;         // "agent:dw-incidents"
  std::string client;        // the MCP client's declared name and the session, kept with it
  std::string session;
};

struct MarkProposalOutcome {
  std::string proposal_id;
  int64_t version = 0;
  std::string status;     // ProposalStatusName: "pending" once sent
  std::string waits_for;  // who must approve it, in words
};

// Validates the range as a person's mark would be (observe/metrics ValidateMark), finds the
// metric's domain (its monitor's asset's domain, else the workspace's only domain; else
// InvalidArgument naming the metric), stores the proposal (id "mark-" and a digest of metric and
// range, so asking again makes a new version) and sends it for approval. The errors of
// StoreProposal and SendForApproval (a domain at L0/L1, no approvers) are returned.
Result<MarkProposalOutcome> ProposeMarkExpected(const config::Workspace& workspace, store::StateStore& store,
                                                const MarkProposalRequest& request, const Clock& clock);

// Stores the mark an approved mark_expected proposal `rec` asks for, with `person` (the approver
// whose decision completed it) as its author; returns the mark's id. Called by Decide inside the
// decision's transaction. InvalidArgument when the stored content is not a range of a metric.
Result<int64_t> ApplyApprovedMark(store::StateStore& store, const store::ProposalRecord& rec,
                                  const std::string& person);

}  // namespace dw::actions
