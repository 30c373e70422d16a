// RFC 6570 level-1 URI templates ("test://template/{id}/data"): checking and matching.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dw::mcp {

// Ok iff `tmpl` is a level-1 template we can match: balanced braces, non-empty variable names of
// [A-Za-z0-9_], and no two variables side by side (their boundary would be ambiguous).
Status CheckUriTemplate(std::string_view tmpl);

// The variables of `uri` when it matches `tmpl`, percent-decoded; nullopt when it does not match.
// A variable matches one or more characters other than '/', '?' and '#' (what simple expansion
// would have percent-encoded). REQUIRES: CheckUriTemplate(tmpl).ok().
std::optional<std::map<std::string, std::string>> MatchUriTemplate(std::string_view tmpl,
                                                                   std::string_view uri);

}  // namespace dw::mcp
