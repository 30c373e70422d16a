// JSON-RPC 2.0 as MCP uses it: error codes and the shapes of the messages we send.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "base/json.h"

namespace dw::mcp {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;  // MCP: resources/read of an unknown uri

// A JSON-RPC error object; `data` is omitted from the wire when null.
struct RpcError {
  int code = kInternalError;
  std::string message;
  Json data;
};

// What a method handler answers: the `result` object, or the error.
using RpcReply = std::variant<Json, RpcError>;

// True iff `id` may identify a request: a string or an integer (MCP forbids null).
bool IsValidRequestId(const Json& id);

// {"jsonrpc":"2.0","id":id,"result":result}
Json MakeResult(const Json& id, Json result);
// {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}
Json MakeError(const Json& id, const RpcError& error);
// {"jsonrpc":"2.0","method":method,"params":params}
Json MakeNotification(std::string_view method, Json params);
// {"jsonrpc":"2.0","id":id,"method":method,"params":params}
Json MakeRequest(const Json& id, std::string_view method, Json params);

}  // namespace dw::mcp
