// MCP over Streamable HTTP (revision 2025-11-25, also serving 2025-06-18 and 2025-03-26 clients):
// each configured path takes JSON-RPC messages by POST and answers with one application/json body
// or, when the server has something to say before the response (tools/call logging, progress,
// sampling and elicitation requests), with a text/event-stream of those messages ending with the
// response. Sessions are named by the Mcp-Session-Id header. The HTTP server underneath
// (net/http_server.h) carries other protocols' routes (health, OpenLineage intake) behind the same
// Host/Origin and bearer checks.
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
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "mcp/catalog.h"
#include "net/http_server.h"
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
  // Sessions one client address may hold (its oldest unused ones make room for its new ones).
  size_t max_sessions_per_peer = 256;
  std::chrono::milliseconds session_idle_ttl = std::chrono::hours(1);
  // Host names accepted besides loopback ones (and the bound host when it is a name or address).
  std::vector<std::string> allowed_hosts;
  const Clock* clock = nullptr;  // session expiry; nullptr = the real clock
};

// MCP's endpoints on the process's one HTTP server (net/http_server.h), which this object owns:
// other protocols (the OpenLineage intake) register their routes on http() before Start(), and
// share its Host/Origin and bearer checks. The server's own rejections are JSON-RPC errors here.
class StreamableHttpServer {
 public:
  StreamableHttpServer();
  // Stops the server if it is running.
  ~StreamableHttpServer();
  StreamableHttpServer(const StreamableHttpServer&) = delete;
  StreamableHttpServer& operator=(const StreamableHttpServer&) = delete;

  // The HTTP server the endpoints are served on, for other protocols' routes (before Start()).
  net::HttpServer& http();

  // http().AddJsonRoute(...): see net::HttpServer::AddJsonRoute.
  Status AddJsonRoute(const std::string& method, const std::string& path, net::JsonRouteHandler handler,
                      bool raw_body = false);

  // Registers `endpoints` on http() and starts it, with GET /healthz (always open: no token, no
  // Host check). Fails with kFailedPrecondition for a non-loopback host without a bearer token or
  // when already started, kInvalidArgument for bad endpoints (or a path another route holds) or
  // port, kUnavailable when the address cannot be bound. Returns once the server accepts
  // connections.
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
