#include "net/http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "base/log.h"
#include "base/redaction.h"
#include "net/http_connection_server.h"
#include "net/http_fast_route.h"
#include "net/http_media_type.h"
#include "net/http_security.h"
#include "net/worker_pool.h"

namespace dw::net {
namespace {

constexpr char kJsonType[] = "application/json";

std::string Dump(const Json& j) {
  // Handler output may carry invalid UTF-8 from the data it read; replace it rather than throw.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void Reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(Dump(body), kJsonType);
}

std::string RegexEscape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// Parses a JSON route body; returns false with a reason for bad JSON or nesting over `max_depth`.
bool ParseRouteBody(const std::string& body, int max_depth, Json* out, std::string* why) {
  if (body.empty()) {
    *out = nullptr;
    return true;
  }
  bool too_deep = false;
  Json parsed = Json::parse(
      body,
      [&](int depth, Json::parse_event_t, Json&) {
        if (depth > max_depth) too_deep = true;
        return !too_deep;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    *why = "JSON nesting deeper than " + std::to_string(max_depth);
    return false;
  }
  if (parsed.is_discarded()) {
    *why = "the body is not valid JSON";
    return false;
  }
  *out = std::move(parsed);
  return true;
}

// httplib asks for a TaskQueue per server; ours grows with the number of open connections (each
// keep-alive connection or SSE stream holds a thread) instead of queueing behind a fixed few.
class PoolTaskQueue final : public httplib::TaskQueue {
 public:
  PoolTaskQueue(size_t min_threads, size_t max_threads)
      : pool_(min_threads, max_threads, std::chrono::seconds(30)) {}
  void enqueue(std::function<void()> fn) override {
    // Submit only fails after shutdown, which httplib begins after its accept loop has ended.
    if (!pool_.Submit(fn)) fn();
  }
  void shutdown() override { pool_.Shutdown(); }

 private:
  WorkerPool pool_;
};

struct JsonRoute {
  std::string method;
  std::string path;
  JsonRouteHandler handler;
  bool raw_body = false;
};

struct HandlerRoute {
  std::string method;
  std::string path;
  HttpHandler handler;
  bool prefix = false;  // path is a prefix ending in '/': matches path + one or more characters
};

const std::set<std::string>& JsonMethods() {
  static const std::set<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};
  return kMethods;
}

}  // namespace

Json PlainRejection(int /*status*/, const std::string& message) { return Json{{"error", message}}; }

struct HttpServer::Impl {
  HttpServerOptions options;
  std::vector<JsonRoute> json_routes;
  std::vector<HandlerRoute> handlers;

  std::unique_ptr<OriginPolicy> origin_policy;
  std::unique_ptr<BearerCheck> bearer;
  std::function<bool(const httplib::Request&)> admits_without_bearer;
  std::unique_ptr<ConnectionServer> server;
  std::thread listener;
  std::mutex mu;  // guards started/stopped transitions and the route lists before Start
  bool started = false;
  int port = 0;

  Status CheckNewRoute(const std::string& method, const std::string& path, bool json) const;
  bool Admit(const httplib::Request& req, httplib::Response& res);
  void HandleJsonRoute(const JsonRoute& route, const httplib::Request& req, httplib::Response& res);
  // Reads the body through `reader` into req.body, at most options.max_body_bytes of it after
  // any Content-Encoding is inflated, whatever the framing (Content-Length, chunked, none).
  // httplib 0.11 caps only a declared Content-Length, so a chunked body or a small gzip body that
  // inflates to gigabytes would otherwise be held whole in memory. Returns false after writing
  // the rejection (413 over the limit, else what httplib found: 400, 415) and asking for the
  // connection to close (what follows on it is the rest of the refused body).
  bool ReadBody(const httplib::Request& req, const httplib::ContentReader& reader, httplib::Response& res);
  const JsonRouteHandler* AdmitFast(const FastRequestHead& head) const;
  void InstallRoutes();
};

Status HttpServer::Impl::CheckNewRoute(const std::string& method, const std::string& path, bool json) const {
  if (started) return FailedPrecondition("routes must be added before the HTTP server starts");
  if (path.empty() || path.front() != '/' || path == "/healthz")
    return InvalidArgument("a route needs an absolute path other than /healthz: '" + path + "'");
  for (const JsonRoute& r : json_routes) {
    if (r.method == method && r.path == path)
      return InvalidArgument("JSON route " + method + " " + path + " is already registered");
    if (!json && r.path == path) return InvalidArgument("path " + path + " is already a JSON route");
  }
  for (const HandlerRoute& r : handlers) {
    if (r.method == method && r.path == path)
      return InvalidArgument("route " + method + " " + path + " is already registered");
    if (json && r.path == path) return InvalidArgument("path " + path + " is already taken by another protocol");
  }
  return Status::Ok();
}

// Host/Origin and bearer checks shared by every route but /healthz. Returns false after writing
// the rejection.
bool HttpServer::Impl::Admit(const httplib::Request& req, httplib::Response& res) {
  // Exactly one Host: two could smuggle a foreign name past a check that reads only the first.
  if (req.get_header_value_count("Host") != 1 ||
      !origin_policy->HostAllowed(req.get_header_value("Host"))) {
    Reply(res, 403, options.rejection_body(403, "Forbidden: Host header not allowed"));
    return false;
  }
  if (req.has_header("Origin") && (req.get_header_value_count("Origin") != 1 ||
                                   !origin_policy->OriginAllowed(req.get_header_value("Origin")))) {
    Reply(res, 403, options.rejection_body(403, "Forbidden: Origin not allowed"));
    return false;
  }
  if (bearer->enabled() && (req.get_header_value_count("Authorization") != 1 ||
                            !bearer->Allows(req.get_header_value("Authorization"))) &&
      !(admits_without_bearer && admits_without_bearer(req))) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"dw\"");
    Reply(res, 401, options.rejection_body(401, "Unauthorized: a valid bearer token is required"));
    return false;
  }
  return true;
}

bool HttpServer::Impl::ReadBody(const httplib::Request& req, const httplib::ContentReader& reader,
                                httplib::Response& res) {
  const size_t cap = options.max_body_bytes;
  // httplib's own Request object; the handlers read the body from it as from a plain route.
  std::string& body = const_cast<httplib::Request&>(req).body;
  body.clear();
  bool too_large = false;
  // The receiver sees the body after httplib's decompressor, chunk by chunk: refusing the chunk
  // that would pass the cap stops both the reading and the inflating.
  const bool read = reader([&](const char* data, size_t n) {
    if (n > cap - body.size()) {
      too_large = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (read) return true;
  body.clear();
  ConnectionServer::CloseAfterResponse();
  if (too_large || res.status == 413) {
    Reply(res, 413, options.rejection_body(413, "Invalid Request: the message exceeds the size limit of " +
                                                    std::to_string(cap) + " bytes (after decompression)"));
  } else if (res.status == 415) {
    Reply(res, 415, options.rejection_body(415, "Unsupported Media Type: Content-Encoding must be gzip, "
                                                "deflate or br"));
  } else {
    Reply(res, 400, options.rejection_body(400, "Bad Request: the body could not be read"));
  }
  return false;
}

void HttpServer::Impl::HandleJsonRoute(const JsonRoute& route, const httplib::Request& req,
                                       httplib::Response& res) {
  JsonRouteRequest request;
  request.method = req.method;
  request.path = req.path;
  for (const auto& [k, v] : req.params) request.query.emplace(k, v);
  std::string why;
  if (!req.body.empty() && MediaType(req.get_header_value("Content-Type")) != kJsonType) {
    Reply(res, 415, Json{{"error", "Content-Type must be application/json"}});
    return;
  }
  request.max_json_depth = options.max_json_depth;
  if (route.raw_body) {
    request.raw_body = req.body;
  } else if (!ParseRouteBody(req.body, options.max_json_depth, &request.body, &why)) {
    Reply(res, 400, Json{{"error", why}});
    return;
  }
  JsonRouteReply reply = route.handler(request);
  if (!reply.text.empty()) {
    res.status = reply.status;
    res.set_content(reply.text, kJsonType);
    return;
  }
  Reply(res, reply.status, reply.body);
}

// The fast path's admission: the raw-body route at this method and exact path, when every check
// Admit and HandleJsonRoute make would pass; otherwise nullptr and httplib serves the request (and
// writes whatever rejection applies).
const JsonRouteHandler* HttpServer::Impl::AdmitFast(const FastRequestHead& head) const {
  const JsonRoute* route = nullptr;
  for (const JsonRoute& r : json_routes)
    if (r.raw_body && r.method == head.method && r.path == head.target) route = &r;
  if (route == nullptr) return nullptr;
  if (head.host_count != 1 || !origin_policy->HostAllowed(head.host)) return nullptr;
  if (head.origin_count > 1 || (head.origin_count == 1 && !origin_policy->OriginAllowed(head.origin)))
    return nullptr;
  if (bearer->enabled() && (head.authorization_count != 1 || !bearer->Allows(head.authorization)))
    return nullptr;
  if (head.content_length == 0 || head.content_length > options.max_body_bytes ||
      MediaType(head.content_type) != kJsonType)
    return nullptr;
  return &route->handler;
}

void HttpServer::Impl::InstallRoutes() {
  httplib::Server& s = *server;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // httplib compresses JSON bodies whenever the client offers gzip or br, and its brotli runs at
    // quality 11: milliseconds of CPU per tools/list to save bytes on a loopback link. Serving
    // identity is always allowed, so drop the offer. (The Request is httplib's own non-const
    // object; only the handler signature is const.)
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    // httplib 0.11 cuts every response to a Range the request names, whatever its method or
    // status: a POST with "Range: bytes=0-1" got a 403 whose JSON body was the two bytes `{"`
    // (found by the http_serve fuzz target). No route here serves parts of a document, and
    // RFC 9110 lets a server ignore Range: drop it, so every answer is whole.
    const_cast<httplib::Request&>(req).ranges.clear();
    const_cast<httplib::Request&>(req).headers.erase("Range");
    if (req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
    if (Admit(req, res)) return httplib::Server::HandlerResponse::Unhandled;
    // httplib answers a request handled here without reading its body, and would then read that
    // body as the connection's next request: a POST refused for its token whose body is a whole
    // request would have that request served too (and, behind a proxy sharing the connection,
    // its answer given to the next client). A refused request ends its connection instead.
    ConnectionServer::CloseAfterResponse();
    return httplib::Server::HandlerResponse::Handled;
  });
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, Json{{"status", "ok"}});
  });
  // Every method that may carry a body (POST, PUT, PATCH, DELETE) is served with a content
  // reader, so that no body is read but by ReadBody; the last routes catch every other path,
  // because httplib would otherwise read an unrouted request's body whole before answering 404.
  auto with_body = [this](httplib::Server::Handler h) {
    return [this, h = std::move(h)](const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& reader) {
      if (ReadBody(req, reader, res)) h(req, res);
    };
  };
  auto install = [&s, &with_body](const std::string& method, const std::string& pattern, httplib::Server::Handler h) {
    if (method == "GET") s.Get(pattern, std::move(h));
    if (method == "POST") s.Post(pattern, with_body(std::move(h)));
    if (method == "PUT") s.Put(pattern, with_body(std::move(h)));
    if (method == "PATCH") s.Patch(pattern, with_body(std::move(h)));
    if (method == "DELETE") s.Delete(pattern, with_body(std::move(h)));
    if (method == "OPTIONS") s.Options(pattern, std::move(h));
  };
  // httplib tries routes in the order they were added: exact paths before prefixes.
  for (const HandlerRoute& route : handlers)
    if (!route.prefix) install(route.method, RegexEscape(route.path), route.handler);
  for (const JsonRoute& route : json_routes) {
    install(route.method, RegexEscape(route.path), [this, &route](const httplib::Request& req, httplib::Response& res) {
      HandleJsonRoute(route, req, res);
    });
  }
  for (const HandlerRoute& route : handlers)
    if (route.prefix) install(route.method, RegexEscape(route.path) + ".+", route.handler);
  auto unrouted = with_body([](const httplib::Request&, httplib::Response& res) {
    Reply(res, 404, Json{{"error", "not found"}});
  });
  s.Post(".*", unrouted);
  s.Put(".*", unrouted);
  s.Patch(".*", unrouted);
  s.Delete(".*", unrouted);
  // Give the bodies httplib writes itself (413, 404) the same JSON shape as ours.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.is_chunked_content_provider_)
      return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413) {
      Reply(res, 413, options.rejection_body(413, "Invalid Request: the message exceeds the size limit"));
    } else if (res.status == 404) {
      Reply(res, 404, Json{{"error", "not found"}});
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([this](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("{}: handler failed: {}", options.log_name, RedactSecrets(what));
    Reply(res, 500, options.rejection_body(500, "Internal error"));
  });
}

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::AddJsonRoute(const std::string& method, const std::string& path, JsonRouteHandler handler,
                                bool raw_body) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->started) return FailedPrecondition("AddJsonRoute must be called before Start");
  if (!JsonMethods().count(method)) return InvalidArgument("unsupported HTTP method for a JSON route: " + method);
  if (path.empty() || path.front() != '/' || path == "/healthz")
    return InvalidArgument("a JSON route needs an absolute path other than /healthz: '" + path + "'");
  if (Status st = impl_->CheckNewRoute(method, path, /*json=*/true); !st.ok()) return st;
  if (!handler) return InvalidArgument("JSON route " + method + " " + path + " has no handler");
  // Every reply of every JSON route, on the fast path or httplib's, leaves through this wrapper:
  // a refusal that quotes what failed never carries a secret.
  JsonRouteHandler redacting = [handler = std::move(handler)](const JsonRouteRequest& request) {
    JsonRouteReply reply = handler(request);
    if (reply.status >= 400) {
      if (!reply.text.empty()) reply.text = RedactSecrets(std::move(reply.text));
      RedactSecretsIn(reply.body);
    }
    return reply;
  };
  impl_->json_routes.push_back({method, path, std::move(redacting), raw_body});
  return Status::Ok();
}

Status HttpServer::AddHandler(const std::string& method, const std::string& path, HttpHandler handler) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!JsonMethods().count(method) && method != "OPTIONS")
    return InvalidArgument("unsupported HTTP method for a route: " + method);
  if (Status st = impl_->CheckNewRoute(method, path, /*json=*/false); !st.ok()) return st;
  if (!handler) return InvalidArgument("route " + method + " " + path + " has no handler");
  impl_->handlers.push_back({method, path, std::move(handler)});
  return Status::Ok();
}

Status HttpServer::AddPrefixHandler(const std::string& method, const std::string& prefix, HttpHandler handler) {
  if (prefix.empty() || prefix.back() != '/')
    return InvalidArgument("a prefix route must end in '/': '" + prefix + "'");
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!JsonMethods().count(method) && method != "OPTIONS")
    return InvalidArgument("unsupported HTTP method for a route: " + method);
  for (const HandlerRoute& r : impl_->handlers)
    if (r.prefix && r.method == method && r.path == prefix)
      return InvalidArgument("prefix route " + method + " " + prefix + " is already registered");
  if (impl_->started) return FailedPrecondition("routes must be added before the HTTP server starts");
  if (prefix.front() != '/') return InvalidArgument("a route needs an absolute path: '" + prefix + "'");
  if (!handler) return InvalidArgument("route " + method + " " + prefix + " has no handler");
  impl_->handlers.push_back({method, prefix, std::move(handler), /*prefix=*/true});
  return Status::Ok();
}

Status HttpServer::AdmitWithoutBearer(std::function<bool(const httplib::Request&)> admits) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->started) return FailedPrecondition("admission rules must be set before the HTTP server starts");
  if (impl_->admits_without_bearer) return InvalidArgument("another protocol already admits requests without the bearer token");
  impl_->admits_without_bearer = std::move(admits);
  return Status::Ok();
}

Status HttpServer::Start(HttpServerOptions options) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (m.started) return FailedPrecondition("the HTTP server is already started");
  if (options.port < 0 || options.port > 65535)
    return InvalidArgument("port out of range: " + std::to_string(options.port));
  std::string bind_host = options.host;
  if (bind_host.size() >= 2 && bind_host.front() == '[' && bind_host.back() == ']')
    bind_host = bind_host.substr(1, bind_host.size() - 2);
  const bool loopback = IsLoopbackHost(bind_host);
  if (!loopback && options.bearer_token.empty())
    return FailedPrecondition("refusing to listen on " + options.host +
                              " without a bearer token: anyone who can reach that address could "
                              "call the tools; set a token or listen on 127.0.0.1");
  if (options.threads < 1) options.threads = 1;
  if (options.max_threads < options.threads) options.max_threads = options.threads;
  if (!options.rejection_body) options.rejection_body = PlainRejection;

  std::vector<std::string> extra_hosts = options.allowed_hosts;
  if (!loopback && !IsWildcardHost(bind_host)) extra_hosts.push_back(bind_host);
  m.origin_policy = std::make_unique<OriginPolicy>(
      extra_hosts, IsWildcardHost(bind_host) && !options.bearer_token.empty());
  m.bearer = std::make_unique<BearerCheck>(options.bearer_token);
  m.options = std::move(options);

  auto connection_server = std::make_unique<ConnectionServer>();
  ConnectionServer* backlog_server = connection_server.get();
  m.server = std::move(connection_server);
  httplib::Server& s = *m.server;
  const size_t min_threads = static_cast<size_t>(m.options.threads);
  const size_t max_threads = static_cast<size_t>(m.options.max_threads);
  s.new_task_queue = [min_threads, max_threads] { return new PoolTaskQueue(min_threads, max_threads); };
  s.set_tcp_nodelay(true);  // small JSON replies must not wait for Nagle/delayed-ACK
  // httplib's default also sets SO_REUSEPORT, which would let a second server bind the same port
  // and silently take half the connections; keep SO_REUSEADDR only (fast restarts).
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  constexpr size_t kKeepAliveMax = 100000;
  constexpr time_t kKeepAliveSeconds = 5;
  s.set_keep_alive_max_count(kKeepAliveMax);
  s.set_keep_alive_timeout(kKeepAliveSeconds);
  s.set_payload_max_length(m.options.max_body_bytes);
  m.InstallRoutes();
  FastRoutes fast;
  Impl* impl = &m;
  fast.admit = [impl](const FastRequestHead& head) { return impl->AdmitFast(head); };
  fast.max_json_depth = m.options.max_json_depth;
  fast.read_timeout_ms = CPPHTTPLIB_READ_TIMEOUT_SECOND * 1000;
  fast.write_timeout_ms = CPPHTTPLIB_WRITE_TIMEOUT_SECOND * 1000;
  fast.request_read_limit_ms = static_cast<int>(m.options.request_read_limit.count());
  fast.keep_alive = "timeout=" + std::to_string(kKeepAliveSeconds) + ", max=" + std::to_string(kKeepAliveMax);
  fast.internal_error_body = m.options.rejection_body(500, "Internal error");
  fast.log_name = m.options.log_name;
  backlog_server->SetFastRoutes(std::move(fast));
  // The cap in all stays below the thread pool's, so a pool thread is free to run a newcomer's
  // admission (and evict a waiting connection) even when every other thread is held.
  const int in_all = m.options.max_connections > 0 ? std::min(m.options.max_connections, m.options.max_threads)
                                                   : std::max({1, m.options.max_threads - 8, m.options.max_threads * 3 / 4});
  backlog_server->SetAdmission(static_cast<size_t>(std::max(1, m.options.max_connections_per_peer)),
                               m.options.request_read_limit, static_cast<size_t>(in_all));

  int port = m.options.port;
  if (port == 0) {
    port = s.bind_to_any_port(bind_host);
    if (port < 0) port = 0;
  } else if (!s.bind_to_port(bind_host, port)) {
    port = 0;
  }
  if (port == 0) {
    m.server.reset();
    return Unavailable("cannot listen on " + m.options.host + ":" + std::to_string(m.options.port) +
                       " (address in use or not available)");
  }
  if (!backlog_server->RaiseBacklog(SOMAXCONN))
    spdlog::warn("{}: could not raise the listen backlog; bursts of connections may be dropped",
                 m.options.log_name);
  m.port = port;
  httplib::Server* server = m.server.get();
  m.listener = std::thread([server] { server->listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so wait for it before reporting success.
  for (int i = 0; i < 5000 && !server->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  m.started = true;
  spdlog::info("{}: listening on {}:{} (token {})", m.options.log_name, m.options.host, port,
               m.bearer->enabled() ? "required" : "not required");
  return Status::Ok();
}

int HttpServer::port() const { return impl_->port; }

Status HttpServer::ServeConnection(int sock) {
  ConnectionServer* server = nullptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->started) server = impl_->server.get();
  }
  if (server == nullptr) {
    ::close(sock);
    return FailedPrecondition("the HTTP server is not started: no connection can be served");
  }
  server->ServeConnection(sock);
  return Status::Ok();
}

void HttpServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (!m.started) return;
  m.server->stop();
  if (m.listener.joinable()) m.listener.join();
  m.started = false;
  m.port = 0;
  spdlog::info("{}: stopped", m.options.log_name);
}

}  // namespace dw::net
