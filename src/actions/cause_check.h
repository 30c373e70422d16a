// Internal to actions/: whether an incident's cause is gone (verification.cc asks it).
#pragma once

#include <string>

#include "actions/actions.h"

namespace dw::actions {

struct CauseCheck {
  bool checked = false;  // an approved fix named a cause that could be looked for
  bool live = false;     // the cause is still live, or could not be told gone
  std::string sentence;  // when live: what is still live and what to do
  std::string note;      // when gone: what was seen
};

// For an incident whose newest approved `kestra_flow_diff` proposal changes a flow: live while
// Kestra still runs the source the fix changes (its base_sha256, or a revision no newer than its
// base_revision), including after a revert to it; also live (said so) when Kestra cannot be asked.
// Nothing to check (checked false) without such a fix. Errors only when the store fails or the
// fix's stored content is not one this stage wrote.
Result<CauseCheck> CheckCauseGone(store::StateStore& store, const DecisionTrust& trust, const std::string& incident_id,
                                  const FlowRevisionReader& current_flow_revision, const Clock& clock);

}  // namespace dw::actions
