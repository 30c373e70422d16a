#include "base/person_identity.h"

namespace dw {

bool IsAgentIdentity(std::string_view who) { return who.rfind("agent:", 0) == 0 || who.rfind("dw-", 0) == 0; }

bool LooksLikePersonEmail(std::string_view who) {
  if (IsAgentIdentity(who)) return false;
  const size_t at = who.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= who.size()) return false;
  if (who.find('@', at + 1) != std::string_view::npos) return false;
  if (who.find('.', at + 1) == std::string_view::npos) return false;
  for (char c : who)
    if (static_cast<unsigned char>(c) <= 0x20 || c == '"' || c == '<' || c == '>' || c == 0x7f) return false;
  return true;
}

}  // namespace dw
