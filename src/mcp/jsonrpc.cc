#include "mcp/jsonrpc.h"

#include "base/redaction.h"

namespace dw::mcp {

bool IsValidRequestId(const Json& id) {
  return id.is_string() || id.is_number_integer();  // is_number_integer covers unsigned too
}

Json MakeResult(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json MakeError(const Json& id, const RpcError& error) {
  Json err{{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) err["data"] = error.data;
  // Error messages quote what failed (a driver's message, a location): never a secret.
  RedactSecretsIn(err);
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

Json MakeNotification(std::string_view method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

Json MakeRequest(const Json& id, std::string_view method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace dw::mcp
