// The one HTTP server of a `dw serve` process (cpp-httplib underneath). The protocols it carries
// register their routes on it before Start(): MCP's Streamable HTTP endpoints (mcp/http_transport.h),
// the OpenLineage intake, and later the web page. The server owns what every route shares: binding,
// the connection threads, the Host/Origin check against DNS rebinding, the optional bearer token,
// the body size cap, GET /healthz, and the fast path for raw-body JSON routes (http_fast_route.h).
//
// Rejections the server writes itself (403 Host/Origin, 401 token, 413 body too large, 500 handler
// failure) carry a JSON body shaped by HttpServerOptions::rejection_body, so a protocol can make
// them look like its own errors (MCP answers with JSON-RPC error objects); 404 is {"error": ...}.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::net {

// A plain JSON route: the parsed body (null when empty) and the query parameters. Routes
// registered with `raw_body` get the body text instead (body stays null), for handlers that
// stream-parse it; `max_json_depth` is the server's nesting limit they should apply.
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

// A handler that needs the whole exchange (headers, streamed responses): MCP's Streamable HTTP.
using HttpHandler = std::function<void(const httplib::Request&, httplib::Response&)>;

// The body of a rejection the server writes itself, for an HTTP status and a sentence.
using RejectionBody = std::function<Json(int status, const std::string& message)>;

// {"error": message}.
Json PlainRejection(int status, const std::string& message);

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;               // 0 = pick a free port (see port())
  std::string bearer_token;   // empty = no token; REQUIRED when host is not loopback
  size_t max_body_bytes = 4 * 1024 * 1024;
  int max_json_depth = 64;    // nesting limit for JSON route bodies
  int threads = 8;            // connection threads kept warm
  int max_threads = 256;      // cap on connections served at once
  // Slow and greedy clients (docs/RELIABILITY.md, "Slow clients"): connections one peer address
  // holds at once (one more is answered 503 with Retry-After), and the time a request's head and
  // body have to arrive after its first byte (else 408 and the connection closes).
  int max_connections_per_peer = 64;
  // Connections held in all, from every address (a distributed slow client): one more takes the
  // place of the connection that has waited longest for a request head, or is answered 503 when
  // every one is being served. 0: max_threads − 8 (at least 3/4 of it), so a thread is free to
  // admit a newcomer.
  int max_connections = 0;
  std::chrono::milliseconds request_read_limit{std::chrono::seconds(20)};
  // Host names accepted besides loopback ones (and the bound host when it is a name or address).
  std::vector<std::string> allowed_hosts;
  RejectionBody rejection_body = PlainRejection;
  std::string log_name = "http";  // prefix of the server's log lines
};

class HttpServer {
 public:
  HttpServer();
  // Stops the server if it is running.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Registers a JSON route (method "GET", "POST", "PUT", "PATCH" or "DELETE"; exact path) served
  // behind the Host/Origin and bearer checks. Bodies that are not JSON get 400; a body with another
  // Content-Type 415. With `raw_body` the body is handed over unparsed (still only
  // application/json), and plain HTTP/1.1 requests to the route are served by the fast path.
  // Fails with kInvalidArgument for an unknown method, a relative path, /healthz or a path that is
  // taken, kFailedPrecondition after Start().
  Status AddJsonRoute(const std::string& method, const std::string& path, JsonRouteHandler handler,
                      bool raw_body = false);

  // Registers `handler` for `method` ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS") on the
  // exact `path`, behind the same checks. Same failures as AddJsonRoute; a path is either JSON
  // routes or handlers, never both.
  Status AddHandler(const std::string& method, const std::string& path, HttpHandler handler);

  // Registers `handler` for `method` on every path that starts with `prefix` (which must end in
  // '/') followed by at least one character: the web pages' `/incidents/<id>`. Same checks and
  // failures as AddHandler; exact routes registered on the same paths win.
  Status AddPrefixHandler(const std::string& method, const std::string& prefix, HttpHandler handler);

  // Lets a request without the bearer token through when `admits` says it carries another
  // credential that the protocol owning the path checks itself (the desk: a session cookie, a
  // trusted proxy's identity, a signed approval link). `admits` must answer false for every path
  // it does not own; the Host/Origin checks still apply. Before Start() only; one per server.
  Status AdmitWithoutBearer(std::function<bool(const httplib::Request&)> admits);

  // Binds and starts serving the routes plus GET /healthz (always open: no token, no Host check).
  // Fails with kFailedPrecondition for a non-loopback host without a bearer token or when already
  // started, kInvalidArgument for a bad port, kUnavailable when the address cannot be bound.
  // Returns once the server accepts connections.
  Status Start(HttpServerOptions options);

  // The bound port (the chosen one when options.port was 0); 0 before Start().
  int port() const;

  // Serves one connected stream socket on the calling thread exactly as an accepted connection is
  // served (the fast path, then httplib, request by request, with the keep-alive rules) until it
  // ends, and closes it. For a caller that already holds a connection: the HTTP fuzz target feeds
  // raw bytes through a socketpair with no listener, accept or thread per input. Fails with
  // kFailedPrecondition (`sock` closed all the same) before Start() or after Stop().
  Status ServeConnection(int sock);

  // Stops accepting and waits for the connection threads to finish.
  // Idempotent; safe to call when never started.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dw::net
