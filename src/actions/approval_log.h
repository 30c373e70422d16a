// Internal to actions/: recording action events and reading a proposal's state from them.
#pragma once

#include <string>

#include "actions/actions.h"

namespace dw::actions {

// The event log subject of a proposal.
std::string ProposalSubject(const std::string& proposal_id);

// Appends an event of `kind` about `subject` by `actor` at now; returns its seq.
Result<int64_t> Record(store::StateStore& store, const Clock& clock, const std::string& kind,
                       const std::string& subject, const std::string& actor, Json body,
                       const std::string& nonce = "");

// The domain named `name` in `workspace`, or nullptr.
const config::DomainConfig* FindDomain(const config::Workspace& workspace, const std::string& name);

}  // namespace dw::actions
