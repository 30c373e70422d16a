// Who an identity string names: a person's email, or one of the identities agents act under.
// One rule for the workspace file (people:), the decisions and the trusted proxy.
#pragma once

#include <string_view>

namespace dw {

// True for the identities agents act under ("agent:<name>", "dw-<agent>").
bool IsAgentIdentity(std::string_view who);
// True for a name@domain address (one '@', a '.' after it, no whitespace, control character,
// quote or angle bracket) that is not an agent identity.
bool LooksLikePersonEmail(std::string_view who);

}  // namespace dw
