// MCP over Streamable HTTP (revision 2025-11-25, also serving 2025-06-18 and 2025-03-26 clients):
// each configured path takes JSON-RPC messages by POST and answers with one application/json body
// or, when the server has something to say before the response (tools/call logging, progress,
// sampling and elicitation requests), with a text/event-stream of those messages ending with the
// response. Sessions are named by the Mcp-Session-Id header. The same server carries a few plain
// JSON routes (health, OpenLineage intake) behind the same Host/Origin and bearer checks.
//
// HTTP status rules (what a client sees for each kind of failure):
//   403  Host or Origin not allowed (DNS-rebinding protection)     401  missing or wrong bearer token
//   415  Content-Type is not application/json                        406  Accept lacks JSON or SSE
//   413  body over Limits::max_message_bytes                         404  unknown path, or unknown
//   400  unparseable message, batch, a message whose JSON-RPC error       or ended session
//        cannot name a request id, missing Mcp-Session-Id,          405  GET/PUT/PATCH on an MCP path
//        unsupported MCP-Protocol-Version                            503  no room for a new session
//   202  notification or response accepted (empty body)
//   200  a request's response, success or JSON-RPC error alike (the error is the answer)
// Every 4xx/5xx from an MCP path carries a JSON-RPC error object as its application/json body.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "mcp/catalog.h"
#include "mcp/session.h"

namespace dw::mcp {

// One MCP server on one path; each endpoint has its own catalog and its own sessions.
struct McpEndpoint {
  std::string path;  // e.g. "/mcp"
  std::shared_ptr<const Catalog> catalog;
  ServerInfo info;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;               // 0 = pick a free port (see port())
  std::string bearer_token;   // empty = no token; REQUIRED when host is not loopback
  Limits limits;              // per message; also the HTTP body cap
  int threads = 8;            // threads kept warm for connections and for tool calls
  int max_threads = 256;      // cap on connections served, and tool calls run, at once
  size_t max_sessions = 1024;
  std::chrono::milliseconds session_idle_ttl = std::chrono::hours(1);
  // Host names accepted besides loopback ones (and the bound host when it is a name or address).
  std::vector<std::string> allowed_hosts;
  const Clock* clock = nullptr;  // session expiry; nullptr = the real clock
};

// A plain JSON route (not MCP): the parsed body (null when empty) and the query parameters.
// Routes registered with `raw_body` get the body text instead (body stays null), for handlers
// that stream-parse it; `max_json_depth` is the server's nesting limit they should apply.
struct JsonRouteRequest {
  std::string method;
  std::string path;
  Json body;
  std::map<std::string, std::string> query;
  std::string_view raw_body;
  int max_json_depth = 0;
};

struct JsonRouteReply {
  int status = 200;
  Json body = Json::object();
  // When not empty, the body as JSON text, sent instead of `body`: a handler on a hot path (the
  // OpenLineage intake answers every event) can skip building a document only to serialize it.
  std::string text;
};

// Must not throw; a failure is a reply with a 4xx/5xx status and a body that says why.
using JsonRouteHandler = std::function<JsonRouteReply(const JsonRouteRequest&)>;

class StreamableHttpServer {
 public:
  StreamableHttpServer();
  // Stops the server if it is running.
  ~StreamableHttpServer();
  StreamableHttpServer(const StreamableHttpServer&) = delete;
  StreamableHttpServer& operator=(const StreamableHttpServer&) = delete;

  // Registers a JSON route (method "GET", "POST", "PUT", "PATCH" or "DELETE"; exact path) served
  // behind the same Host/Origin and bearer checks as MCP. Bodies that are not JSON get 400.
  // REQUIRES: called before Start(). Fails with kInvalidArgument for an unknown method or a path
  // that is taken, kFailedPrecondition after Start().
  // With `raw_body` the body is handed over unparsed (still only application/json), and plain
  // HTTP/1.1 requests to the route are served by the fast path (http_fast_route.h: same checks,
  // one read and one send); anything else still goes through httplib.
  Status AddJsonRoute(const std::string& method, const std::string& path, JsonRouteHandler handler,
                      bool raw_body = false);

  // Binds and starts serving `endpoints` plus GET /healthz (always open: no token, no Host check).
  // Fails with kFailedPrecondition for a non-loopback host without a bearer token or when already
  // started, kInvalidArgument for bad endpoints or port, kUnavailable when the address cannot be
  // bound. Returns once the server accepts connections.
  Status Start(HttpServerOptions options, std::vector<McpEndpoint> endpoints);

  // The bound port (the chosen one when options.port was 0); 0 before Start().
  int port() const;

  // Ends every session (in-flight tool calls are cancelled), stops accepting and waits for the
  // connection threads to finish. Idempotent; safe to call when never started.
  void Stop();

  // Live MCP sessions across all endpoints.
  size_t session_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dw::mcp
