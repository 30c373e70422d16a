// ParseMessage (declared in session.h): the gate every inbound byte passes before the session.
#include <algorithm>

#include "mcp/jsonrpc.h"
#include "mcp/session.h"

namespace dw::mcp {
namespace {

ParsedMessage Reject(int code, std::string message) {
  ParsedMessage p;
  p.error = MakeError(nullptr, RpcError{code, std::move(message), nullptr});
  return p;
}

// Deepest nesting of arrays and objects in `raw`, stopping early past `limit`. Brackets inside
// strings do not count. Scanning first keeps the recursive parser away from hostile depths.
int NestingDepth(std::string_view raw, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : raw) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        deepest = std::max(deepest, ++depth);
        if (deepest > limit) return deepest;
        break;
      case ']':
      case '}': --depth; break;
      default: break;
    }
  }
  return deepest;
}

}  // namespace

ParsedMessage ParseMessage(std::string_view raw, const Limits& limits) {
  if (raw.size() > limits.max_message_bytes) {
    return Reject(kInvalidRequest, "message of " + std::to_string(raw.size()) +
                                       " bytes exceeds the limit of " +
                                       std::to_string(limits.max_message_bytes) + " bytes");
  }
  if (NestingDepth(raw, limits.max_json_depth) > limits.max_json_depth) {
    return Reject(kInvalidRequest,
                  "message nests deeper than " + std::to_string(limits.max_json_depth) + " levels");
  }
  ParsedMessage p;
  try {
    // nlohmann's lexer rejects ill-formed UTF-8 (overlong forms, surrogates) inside strings.
    p.message = Json::parse(raw.begin(), raw.end());
  } catch (const Json::parse_error& e) {
    // e.what() quotes the offending bytes, which may be invalid UTF-8; describe them instead.
    bool utf8 = std::string_view(e.what()).find("UTF-8") != std::string_view::npos;
    return Reject(kParseError, std::string(utf8 ? "parse error: invalid UTF-8" : "parse error: invalid JSON") +
                                   " near byte " + std::to_string(e.byte));
  } catch (const Json::exception&) {
    return Reject(kParseError, "parse error: invalid JSON (a number is out of range)");
  }
  if (p.message.is_array()) return Reject(kInvalidRequest, "batch requests are not supported");
  if (!p.message.is_object()) return Reject(kInvalidRequest, "a message must be a JSON object");
  p.ok = true;
  return p;
}

}  // namespace dw::mcp
