#include "mcp/http_transport.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include <httplib.h>
#include <sys/socket.h>

#include "base/log.h"
#include "base/redaction.h"
#include "mcp/http_connection_server.h"
#include "mcp/http_fast_route.h"
#include "mcp/http_security.h"
#include "mcp/http_session_table.h"
#include "mcp/response_stream.h"
#include "mcp/sse.h"
#include "mcp/worker_pool.h"

namespace dw::mcp {
namespace {

constexpr char kJsonType[] = "application/json";
constexpr char kSseType[] = "text/event-stream";
constexpr char kSessionHeader[] = "Mcp-Session-Id";
constexpr char kVersionHeader[] = "MCP-Protocol-Version";

// JSON-RPC codes the transport itself answers with (the spec leaves -32000..-32099 to servers;
// these match what the TypeScript SDK sends, so clients recognise them).
constexpr int kTransportError = -32000;  // bad headers, missing session
constexpr int kSessionNotFound = -32001;
constexpr int kInternalError = -32603;

// How long an SSE writer waits for the next message before checking for shutdown, and how long a
// stream may stay silent before a comment line probes the connection (and keeps proxies open).
constexpr std::chrono::milliseconds kStreamPoll{250};
constexpr std::chrono::seconds kStreamKeepAlive{15};

std::string Dump(const Json& j) {
  // Tool output may carry invalid UTF-8 from the data it read; replace it rather than throw.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json RpcError(int code, std::string message, Json id = nullptr) {
  return Json{{"jsonrpc", "2.0"},
              {"id", std::move(id)},
              {"error", {{"code", code}, {"message", std::move(message)}}}};
}

void Reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(Dump(body), kJsonType);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// The media type of a header value without parameters, lower-cased ("application/json").
std::string MediaType(std::string_view value) {
  return Lower(Trim(value.substr(0, value.find(';'))));
}

// True iff an Accept header admits both JSON and SSE, which the spec requires of every POST.
// Wildcards count (httplib and curl send "*/*"); no Accept at all means "anything" (RFC 9110).
bool AcceptsJsonAndSse(const httplib::Request& req) {
  if (!req.has_header("Accept")) return true;
  bool json = false;
  bool sse = false;
  for (size_t i = 0, n = req.get_header_value_count("Accept"); i < n; ++i) {
    const std::string all = req.get_header_value("Accept", i);
    size_t start = 0;
    while (start <= all.size()) {
      size_t comma = all.find(',', start);
      std::string type = MediaType(std::string_view(all).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start));
      json |= type == "application/json" || type == "application/*" || type == "*/*";
      sse |= type == "text/event-stream" || type == "text/*" || type == "*/*";
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return json && sse;
}

bool IsResponse(const Json& m) { return m.is_object() && !m.contains("method"); }

// A JSON-RPC error that names no request (id null) means the message itself was unusable, which
// is an HTTP 400; any other response, errors included, answers its request and is a 200.
int HttpStatusFor(const Json& response) {
  if (response.is_object() && response.contains("error") &&
      (!response.contains("id") || response["id"].is_null()))
    return 400;
  return 200;
}

std::string RegexEscape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// Drains a finished stream into a vector.
std::vector<Json> Collect(ResponseStream& stream) {
  std::vector<Json> out;
  Json m;
  while (stream.Next(&m, std::chrono::milliseconds(0)) == ResponseStream::Wait::kMessage)
    out.push_back(std::move(m));
  return out;
}

// True when a tools/call must run on the call pool so that what it sends can stream: the tool
// says it sends messages while it runs, or the caller asked for progress. Anything malformed or
// unknown is answered inline (the session rejects it at once).
bool CallMayStream(const Catalog& catalog, const Json& message) {
  const Json* params = message.contains("params") ? &message["params"] : nullptr;
  if (params == nullptr || !params->is_object()) return false;
  auto meta = params->find("_meta");
  if (meta != params->end() && meta->is_object() && meta->contains("progressToken")) return true;
  auto name = params->find("name");
  if (name == params->end() || !name->is_string()) return false;
  const ToolSpec* tool = catalog.FindTool(name->get_ref<const std::string&>());
  return tool != nullptr && tool->streams;
}

// Writes what an inline (non-streamed) request produced: normally exactly one response as JSON.
// Should a handler other than tools/call ever emit messages before its response, they are sent
// together as one SSE body so that nothing is lost and the order is kept.
void ReplyCollected(httplib::Response& res, const std::vector<Json>& messages, const Json& id) {
  if (messages.empty()) {
    Reply(res, 500, RpcError(kInternalError, "Internal error: the request produced no response", id));
  } else if (messages.size() == 1) {
    Reply(res, HttpStatusFor(messages.front()), messages.front());
  } else {
    std::string body;
    for (size_t i = 0; i < messages.size(); ++i)
      body += FormatSseEvent(std::to_string(i + 1), Dump(messages[i]));
    res.status = 200;
    res.set_header("Cache-Control", "no-cache");
    res.set_content(body, kSseType);
  }
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

}  // namespace

struct StreamableHttpServer::Impl {
  HttpServerOptions options;
  std::vector<McpEndpoint> endpoints;
  std::vector<JsonRoute> json_routes;

  std::unique_ptr<OriginPolicy> origin_policy;
  std::unique_ptr<BearerCheck> bearer;
  std::unique_ptr<HttpSessionTable> sessions;
  std::unique_ptr<WorkerPool> calls;  // runs tools/call so the POST can stream while it works
  std::unique_ptr<httplib::Server> server;
  std::thread listener;
  std::atomic<uint64_t> next_stream{1};
  std::mutex mu;  // guards started/stopped transitions
  bool started = false;
  int port = 0;

  bool Admit(const httplib::Request& req, httplib::Response& res);
  // Reads the body through `reader` into `body`, at most options.limits.max_message_bytes of it
  // after any Content-Encoding is inflated, whatever the framing (Content-Length, chunked, none).
  // httplib 0.11 caps only a declared Content-Length, so a chunked body or a small gzip body that
  // inflates to gigabytes would otherwise be held whole in memory. Returns false after writing
  // the rejection (413 over the limit, else what httplib found: 400, 415) and asking for the
  // connection to close (what follows on it is the rest of the refused body).
  bool ReadBody(const httplib::ContentReader& reader, httplib::Response& res, std::string* body);
  void HandlePost(int ep, const httplib::Request& req, const std::string& body, httplib::Response& res);
  void HandleDelete(int ep, const httplib::Request& req, httplib::Response& res);
  void Initialize(int ep, const Json& message, httplib::Response& res);
  void StreamToolCall(HttpSessionTable::Lease lease, Json message, httplib::Response& res);
  void HandleJsonRoute(const JsonRoute& route, const httplib::Request& req, const std::string& body,
                       httplib::Response& res);
  const JsonRouteHandler* AdmitFast(const FastRequestHead& head) const;
  void InstallRoutes();
};

// Host/Origin and bearer checks shared by every route but /healthz. Returns false after writing
// the rejection.
bool StreamableHttpServer::Impl::Admit(const httplib::Request& req, httplib::Response& res) {
  // Exactly one Host: two could smuggle a foreign name past a check that reads only the first.
  if (req.get_header_value_count("Host") != 1 ||
      !origin_policy->HostAllowed(req.get_header_value("Host"))) {
    Reply(res, 403, RpcError(kTransportError, "Forbidden: Host header not allowed"));
    return false;
  }
  if (req.has_header("Origin") && (req.get_header_value_count("Origin") != 1 ||
                                   !origin_policy->OriginAllowed(req.get_header_value("Origin")))) {
    Reply(res, 403, RpcError(kTransportError, "Forbidden: Origin not allowed"));
    return false;
  }
  if (bearer->enabled() && (req.get_header_value_count("Authorization") != 1 ||
                            !bearer->Allows(req.get_header_value("Authorization")))) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"dw\"");
    Reply(res, 401, RpcError(kTransportError, "Unauthorized: a valid bearer token is required"));
    return false;
  }
  return true;
}

bool StreamableHttpServer::Impl::ReadBody(const httplib::ContentReader& reader,
                                          httplib::Response& res, std::string* body) {
  const size_t cap = options.limits.max_message_bytes;
  bool too_large = false;
  // The receiver sees the body after httplib's decompressor, chunk by chunk: refusing the chunk
  // that would pass the cap stops both the reading and the inflating.
  const bool read = reader([&](const char* data, size_t n) {
    if (n > cap - body->size()) {
      too_large = true;
      return false;
    }
    body->append(data, n);
    return true;
  });
  if (read) return true;
  body->clear();
  ConnectionServer::CloseAfterResponse();
  if (too_large || res.status == 413) {
    Reply(res, 413, RpcError(-32600, "Invalid Request: the message exceeds the size limit of " +
                                         std::to_string(cap) + " bytes (after decompression)"));
  } else if (res.status == 415) {
    Reply(res, 415, RpcError(kTransportError,
                             "Unsupported Media Type: Content-Encoding must be gzip, deflate or br"));
  } else {
    Reply(res, 400, RpcError(kTransportError, "Bad Request: the body could not be read"));
  }
  return false;
}

void StreamableHttpServer::Impl::HandlePost(int ep, const httplib::Request& req,
                                            const std::string& body, httplib::Response& res) {
  if (MediaType(req.get_header_value("Content-Type")) != kJsonType) {
    Reply(res, 415,
          RpcError(kTransportError, "Unsupported Media Type: Content-Type must be application/json"));
    return;
  }
  if (!AcceptsJsonAndSse(req)) {
    Reply(res, 406, RpcError(kTransportError,
                             "Not Acceptable: Accept must include application/json and "
                             "text/event-stream"));
    return;
  }
  ParsedMessage parsed = ParseMessage(body, options.limits);
  if (!parsed.ok) {
    Reply(res, 400, parsed.error);
    return;
  }
  Json& message = parsed.message;
  // An empty Mcp-Session-Id counts as none (httplib may drop empty header values anyway).
  const bool has_session = !req.get_header_value(kSessionHeader).empty();
  const bool is_request = message.is_object() && message.contains("method") && message.contains("id");
  if (is_request && !has_session && message["method"] == "initialize") {
    Initialize(ep, message, res);
    return;
  }
  if (!has_session) {
    Reply(res, 400, RpcError(kTransportError, "Bad Request: Mcp-Session-Id header is required"));
    return;
  }
  if (req.has_header(kVersionHeader) &&
      !IsSupportedProtocolVersion(req.get_header_value(kVersionHeader))) {
    Reply(res, 400, RpcError(kTransportError, "Bad Request: Unsupported protocol version: " +
                                                  req.get_header_value(kVersionHeader)));
    return;
  }
  HttpSessionTable::Lease lease = sessions->Acquire(req.get_header_value(kSessionHeader), ep);
  if (!lease) {
    Reply(res, 404, RpcError(kSessionNotFound, "Session not found"));
    return;
  }
  if (is_request && message["method"] == "tools/call" &&
      CallMayStream(*endpoints[static_cast<size_t>(ep)].catalog, message)) {
    StreamToolCall(std::move(lease), std::move(message), res);
    return;
  }
  ResponseStream out;
  lease.session().Handle(message, out);
  out.Finish();
  std::vector<Json> sent = Collect(out);
  if (is_request && sent.empty() && message["method"] == "tools/call") {
    // An inline call cancelled while it ran: its response is suppressed, as on the pool path.
    res.status = 200;
    res.set_content("", kSseType);
  } else if (is_request) {
    ReplyCollected(res, sent, message["id"]);
  } else if (sent.empty()) {
    res.status = 202;  // notification or response accepted
  } else {
    // The session answered a notification or response, which it does only to reject it.
    Reply(res, 400, sent.front());
  }
}

void StreamableHttpServer::Impl::Initialize(int ep, const Json& message, httplib::Response& res) {
  const McpEndpoint& endpoint = endpoints[static_cast<size_t>(ep)];
  auto session = std::make_shared<Session>(endpoint.catalog, endpoint.info, options.limits);
  ResponseStream out;
  session->Handle(message, out);
  out.Finish();
  std::vector<Json> sent = Collect(out);
  // Only a successful initialize creates a session; a rejected one leaves nothing behind.
  if (sent.size() == 1 && sent.front().contains("result")) {
    Result<std::string> id = sessions->Add(session, ep);
    if (!id.ok()) {
      session->Close();
      spdlog::warn("mcp http: refused a new session: {}", id.status().ToString());
      Reply(res, 503, RpcError(kTransportError, id.status().message(), message["id"]));
      return;
    }
    res.set_header(kSessionHeader, *id);
  }
  ReplyCollected(res, sent, message["id"]);
}

// Runs a tools/call on the call pool and answers with JSON when the response is the first thing
// the session sends (no logging, progress or client request before it: the common, fast case), or
// with an SSE stream that carries each message as it is sent, ending with the response. The
// choice cannot be made up front: only the tool knows whether it will log or ask the client, and
// a sampling request must reach the client before the response can exist.
void StreamableHttpServer::Impl::StreamToolCall(HttpSessionTable::Lease lease, Json message,
                                                httplib::Response& res) {
  auto stream = std::make_shared<ResponseStream>();
  auto held = std::make_shared<HttpSessionTable::Lease>(std::move(lease));
  Json id = message["id"];
  bool queued = calls->Submit([held, stream, message = std::move(message)]() mutable {
    try {
      held->session().Handle(message, *stream);
    } catch (const std::exception& e) {
      spdlog::error("mcp http: tools/call failed: {}", RedactSecrets(e.what()));
    }
    stream->Finish();
    held.reset();  // the session is no longer busy once its handler returned
  });
  if (!queued) {
    Reply(res, 503, RpcError(kTransportError, "Service Unavailable: the server is stopping", id));
    return;
  }
  Json first;
  ResponseStream::Wait wait;
  while ((wait = stream->Next(&first, std::chrono::seconds(1))) == ResponseStream::Wait::kTimeout) {
  }
  if (wait == ResponseStream::Wait::kFinished) {
    // No response at all: the call was cancelled (notifications/cancelled, DELETE, shutdown) and,
    // as the spec asks, its response suppressed. The client stopped waiting; end with an empty
    // event stream rather than invent a response.
    res.status = 200;
    res.set_content("", kSseType);
    return;
  }
  if (IsResponse(first)) {
    Reply(res, HttpStatusFor(first), first);
    return;
  }

  struct WriterState {
    std::optional<Json> pending;  // the first message, already taken from the stream
    uint64_t stream_no = 0;
    uint64_t seq = 0;
    std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
  };
  auto state = std::make_shared<WriterState>();
  state->pending = std::move(first);
  state->stream_no = next_stream.fetch_add(1);
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      kSseType,
      [stream, state](size_t /*offset*/, httplib::DataSink& sink) {
        Json next;
        if (state->pending) {
          next = std::move(*state->pending);
          state->pending.reset();
        } else {
          switch (stream->Next(&next, kStreamPoll)) {
            case ResponseStream::Wait::kTimeout: {
              // Returning without writing lets httplib notice a server shutdown between waits.
              auto now = std::chrono::steady_clock::now();
              if (now - state->last_write < kStreamKeepAlive) return true;
              state->last_write = now;
              return sink.write(":\n\n", 3);
            }
            case ResponseStream::Wait::kFinished:
              // Handle returned without a response (the call was cancelled): end the stream.
              sink.done();
              return true;
            case ResponseStream::Wait::kMessage:
              break;
          }
        }
        std::string event = FormatSseEvent(
            std::to_string(state->stream_no) + "-" + std::to_string(++state->seq), Dump(next));
        if (!sink.write(event.data(), event.size())) return false;
        state->last_write = std::chrono::steady_clock::now();
        if (IsResponse(next)) sink.done();  // the response is the last message of the stream
        return true;
      },
      [stream](bool /*success*/) { stream->Abandon(); });
}

void StreamableHttpServer::Impl::HandleDelete(int ep, const httplib::Request& req,
                                              httplib::Response& res) {
  if (req.get_header_value(kSessionHeader).empty()) {
    Reply(res, 400, RpcError(kTransportError, "Bad Request: Mcp-Session-Id header is required"));
    return;
  }
  if (!sessions->Remove(req.get_header_value(kSessionHeader), ep)) {
    Reply(res, 404, RpcError(kSessionNotFound, "Session not found"));
    return;
  }
  res.status = 204;
}

void StreamableHttpServer::Impl::HandleJsonRoute(const JsonRoute& route, const httplib::Request& req,
                                                 const std::string& body, httplib::Response& res) {
  JsonRouteRequest request;
  request.method = req.method;
  request.path = req.path;
  for (const auto& [k, v] : req.params) request.query.emplace(k, v);
  std::string why;
  if (!body.empty() && MediaType(req.get_header_value("Content-Type")) != kJsonType) {
    Reply(res, 415, Json{{"error", "Content-Type must be application/json"}});
    return;
  }
  request.max_json_depth = options.limits.max_json_depth;
  if (route.raw_body) {
    request.raw_body = body;
  } else if (!ParseRouteBody(body, options.limits.max_json_depth, &request.body, &why)) {
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
const JsonRouteHandler* StreamableHttpServer::Impl::AdmitFast(const FastRequestHead& head) const {
  const JsonRoute* route = nullptr;
  for (const JsonRoute& r : json_routes)
    if (r.raw_body && r.method == head.method && r.path == head.target) route = &r;
  if (route == nullptr) return nullptr;
  if (head.host_count != 1 || !origin_policy->HostAllowed(head.host)) return nullptr;
  if (head.origin_count > 1 || (head.origin_count == 1 && !origin_policy->OriginAllowed(head.origin)))
    return nullptr;
  if (bearer->enabled() && (head.authorization_count != 1 || !bearer->Allows(head.authorization)))
    return nullptr;
  if (head.content_length == 0 || head.content_length > options.limits.max_message_bytes ||
      MediaType(head.content_type) != kJsonType)
    return nullptr;
  return &route->handler;
}

void StreamableHttpServer::Impl::InstallRoutes() {
  httplib::Server& s = *server;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // httplib compresses JSON bodies whenever the client offers gzip or br, and its brotli runs at
    // quality 11: milliseconds of CPU per tools/list to save bytes on a loopback link. Serving
    // identity is always allowed, so drop the offer. (The Request is httplib's own non-const
    // object; only the handler signature is const.)
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    if (req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
    return Admit(req, res) ? httplib::Server::HandlerResponse::Unhandled
                           : httplib::Server::HandlerResponse::Handled;
  });
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, Json{{"status", "ok"}});
  });
  // Every method that may carry a body (POST, PUT, PATCH, DELETE) is served with a content reader,
  // so that no body is read but by ReadBody; the last routes catch every other path, because
  // httplib would otherwise read an unrouted request's body whole before answering 404.
  using BodyHandler = std::function<void(const httplib::Request&, const std::string&, httplib::Response&)>;
  auto with_body = [this](BodyHandler handler) {
    return [this, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                                const httplib::ContentReader& reader) {
      std::string body;
      if (ReadBody(reader, res, &body)) handler(req, body, res);
    };
  };
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const int ep = static_cast<int>(i);
    const std::string pattern = RegexEscape(endpoints[i].path);
    s.Post(pattern, with_body([this, ep](const httplib::Request& req, const std::string& body,
                                         httplib::Response& res) { HandlePost(ep, req, body, res); }));
    s.Delete(pattern, with_body([this, ep](const httplib::Request& req, const std::string&,
                                           httplib::Response& res) { HandleDelete(ep, req, res); }));
    // No standalone server-to-client stream: everything the server sends rides on a POST's
    // response, and clients (Claude Code, the TypeScript SDK) accept 405 here.
    auto refuse = [](const httplib::Request&, const std::string&, httplib::Response& res) {
      res.set_header("Allow", "POST, DELETE");
      Reply(res, 405, RpcError(kTransportError, "Method Not Allowed"));
    };
    s.Get(pattern, [refuse](const httplib::Request& req, httplib::Response& res) { refuse(req, {}, res); });
    s.Options(pattern, [refuse](const httplib::Request& req, httplib::Response& res) { refuse(req, {}, res); });
    s.Put(pattern, with_body(refuse));
    s.Patch(pattern, with_body(refuse));
  }
  for (const JsonRoute& route : json_routes) {
    const std::string pattern = RegexEscape(route.path);
    if (route.method == "GET") {
      s.Get(pattern, [this, &route](const httplib::Request& req, httplib::Response& res) {
        HandleJsonRoute(route, req, {}, res);
      });
      continue;
    }
    auto handler = with_body([this, &route](const httplib::Request& req, const std::string& body,
                                            httplib::Response& res) {
      HandleJsonRoute(route, req, body, res);
    });
    if (route.method == "POST") s.Post(pattern, handler);
    if (route.method == "PUT") s.Put(pattern, handler);
    if (route.method == "PATCH") s.Patch(pattern, handler);
    if (route.method == "DELETE") s.Delete(pattern, handler);
  }
  auto unrouted = with_body([](const httplib::Request&, const std::string&, httplib::Response& res) {
    Reply(res, 404, Json{{"error", "not found"}});
  });
  s.Post(".*", unrouted);
  s.Put(".*", unrouted);
  s.Patch(".*", unrouted);
  s.Delete(".*", unrouted);
  // Give the bodies httplib writes itself (413, 404) the same JSON shape as ours.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty() || res.is_chunked_content_provider_)
      return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413) {
      Reply(res, 413, RpcError(-32600, "Invalid Request: the message exceeds the size limit"));
    } else if (res.status == 404) {
      Reply(res, 404, Json{{"error", "not found"}});
    } else {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("mcp http: handler failed: {}", RedactSecrets(what));
    Reply(res, 500, RpcError(kInternalError, "Internal error"));
  });
}

StreamableHttpServer::StreamableHttpServer() : impl_(std::make_unique<Impl>()) {}

StreamableHttpServer::~StreamableHttpServer() { Stop(); }

Status StreamableHttpServer::AddJsonRoute(const std::string& method, const std::string& path,
                                          JsonRouteHandler handler, bool raw_body) {
  static const std::set<std::string> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE"};
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->started) return FailedPrecondition("AddJsonRoute must be called before Start");
  if (!kMethods.count(method)) return InvalidArgument("unsupported HTTP method for a JSON route: " + method);
  if (path.empty() || path.front() != '/' || path == "/healthz")
    return InvalidArgument("a JSON route needs an absolute path other than /healthz: '" + path + "'");
  for (const JsonRoute& r : impl_->json_routes)
    if (r.method == method && r.path == path)
      return InvalidArgument("JSON route " + method + " " + path + " is already registered");
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

Status StreamableHttpServer::Start(HttpServerOptions options, std::vector<McpEndpoint> endpoints) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (m.started) return FailedPrecondition("the HTTP server is already started");
  if (endpoints.empty()) return InvalidArgument("the HTTP server needs at least one MCP endpoint");
  std::set<std::string> paths;
  for (const McpEndpoint& e : endpoints) {
    if (e.path.empty() || e.path.front() != '/' || e.path == "/healthz")
      return InvalidArgument("an MCP endpoint needs an absolute path other than /healthz: '" +
                             e.path + "'");
    if (!e.catalog) return InvalidArgument("MCP endpoint " + e.path + " has no catalog");
    if (!paths.insert(e.path).second) return InvalidArgument("MCP endpoint " + e.path + " is listed twice");
    for (const JsonRoute& r : m.json_routes)
      if (r.path == e.path) return InvalidArgument("path " + e.path + " is both MCP and a JSON route");
  }
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

  std::vector<std::string> extra_hosts = options.allowed_hosts;
  if (!loopback && !IsWildcardHost(bind_host)) extra_hosts.push_back(bind_host);
  m.origin_policy = std::make_unique<OriginPolicy>(
      extra_hosts, IsWildcardHost(bind_host) && !options.bearer_token.empty());
  m.bearer = std::make_unique<BearerCheck>(options.bearer_token);
  m.sessions = std::make_unique<HttpSessionTable>(options.max_sessions, options.session_idle_ttl,
                                                  options.clock ? *options.clock : RealClock());
  m.calls = std::make_unique<WorkerPool>(std::min(options.threads, 4),
                                         static_cast<size_t>(options.max_threads),
                                         std::chrono::seconds(30));
  m.options = std::move(options);
  m.endpoints = std::move(endpoints);

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
  s.set_payload_max_length(m.options.limits.max_message_bytes);
  m.InstallRoutes();
  FastRoutes fast;
  Impl* impl = &m;
  fast.admit = [impl](const FastRequestHead& head) { return impl->AdmitFast(head); };
  fast.max_json_depth = m.options.limits.max_json_depth;
  fast.read_timeout_ms = CPPHTTPLIB_READ_TIMEOUT_SECOND * 1000;
  fast.write_timeout_ms = CPPHTTPLIB_WRITE_TIMEOUT_SECOND * 1000;
  fast.keep_alive = "timeout=" + std::to_string(kKeepAliveSeconds) + ", max=" + std::to_string(kKeepAliveMax);
  backlog_server->SetFastRoutes(std::move(fast));

  int port = m.options.port;
  if (port == 0) {
    port = s.bind_to_any_port(bind_host);
    if (port < 0) port = 0;
  } else if (!s.bind_to_port(bind_host, port)) {
    port = 0;
  }
  if (port == 0) {
    m.server.reset();
    m.calls.reset();
    return Unavailable("cannot listen on " + m.options.host + ":" + std::to_string(m.options.port) +
                       " (address in use or not available)");
  }
  if (!backlog_server->RaiseBacklog(SOMAXCONN))
    spdlog::warn("mcp http: could not raise the listen backlog; bursts of connections may be dropped");
  m.port = port;
  httplib::Server* server = m.server.get();
  m.listener = std::thread([server] { server->listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so wait for it before reporting success.
  for (int i = 0; i < 5000 && !server->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  m.started = true;
  spdlog::info("mcp http: listening on {}:{} ({} endpoint(s), token {})", m.options.host, port,
               m.endpoints.size(), m.bearer->enabled() ? "required" : "not required");
  return Status::Ok();
}

int StreamableHttpServer::port() const { return impl_->port; }

void StreamableHttpServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (!m.started) return;
  // Sessions first: their in-flight tool calls are cancelled, so SSE streams end with a response
  // instead of holding their connection threads (which the server's shutdown joins).
  m.sessions->CloseAll();
  m.server->stop();
  if (m.listener.joinable()) m.listener.join();
  m.sessions->CloseAll();  // any session created while stopping
  m.calls->Shutdown();
  m.started = false;
  m.port = 0;
  spdlog::info("mcp http: stopped");
}

size_t StreamableHttpServer::session_count() const {
  return impl_->sessions ? impl_->sessions->size() : 0;
}

}  // namespace dw::mcp
