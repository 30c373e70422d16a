#include "mcp/http_transport.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include <httplib.h>

#include "base/log.h"
#include "mcp/http_session_table.h"
#include "mcp/response_stream.h"
#include "net/http_media_type.h"
#include "net/sse.h"
#include "net/worker_pool.h"

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
      std::string type = net::MediaType(std::string_view(all).substr(
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
      body += net::FormatSseEvent(std::to_string(i + 1), Dump(messages[i]));
    res.status = 200;
    res.set_header("Cache-Control", "no-cache");
    res.set_content(body, kSseType);
  }
}

// The server's own rejections (Host/Origin, token, size, handler failure) as JSON-RPC errors, the
// shape every MCP client can read.
Json McpRejection(int status, const std::string& message) {
  if (status == 413) return RpcError(-32600, message);
  if (status == 500) return RpcError(kInternalError, message);
  return RpcError(kTransportError, message);
}

}  // namespace

struct StreamableHttpServer::Impl {
  HttpServerOptions options;
  std::vector<McpEndpoint> endpoints;

  net::HttpServer http;
  std::unique_ptr<HttpSessionTable> sessions;
  std::unique_ptr<net::WorkerPool> calls;  // runs tools/call so the POST can stream while it works
  std::atomic<uint64_t> next_stream{1};
  std::mutex mu;  // guards started/stopped transitions
  bool started = false;

  void HandlePost(int ep, const httplib::Request& req, httplib::Response& res);
  void HandleDelete(int ep, const httplib::Request& req, httplib::Response& res);
  // `peer`: the client's address (the session table's share per peer).
  void Initialize(int ep, const Json& message, const std::string& peer, httplib::Response& res);
  void StreamToolCall(HttpSessionTable::Lease lease, Json message, httplib::Response& res);
  Status AddEndpointRoutes();
};

void StreamableHttpServer::Impl::HandlePost(int ep, const httplib::Request& req,
                                            httplib::Response& res) {
  if (net::MediaType(req.get_header_value("Content-Type")) != kJsonType) {
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
  ParsedMessage parsed = ParseMessage(req.body, options.limits);
  if (!parsed.ok) {
    Reply(res, 400, parsed.error);
    return;
  }
  Json& message = parsed.message;
  // An empty Mcp-Session-Id counts as none (httplib may drop empty header values anyway).
  const bool has_session = !req.get_header_value(kSessionHeader).empty();
  const bool is_request = message.is_object() && message.contains("method") && message.contains("id");
  if (is_request && !has_session && message["method"] == "initialize") {
    Initialize(ep, message, req.remote_addr, res);
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

void StreamableHttpServer::Impl::Initialize(int ep, const Json& message, const std::string& peer,
                                           httplib::Response& res) {
  const McpEndpoint& endpoint = endpoints[static_cast<size_t>(ep)];
  auto session = std::make_shared<Session>(endpoint.catalog, endpoint.info, options.limits);
  ResponseStream out;
  session->Handle(message, out);
  out.Finish();
  std::vector<Json> sent = Collect(out);
  // Only a successful initialize creates a session; a rejected one leaves nothing behind.
  if (sent.size() == 1 && sent.front().contains("result")) {
    Result<std::string> id = sessions->Add(session, ep, peer);
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
        std::string event = net::FormatSseEvent(
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

Status StreamableHttpServer::Impl::AddEndpointRoutes() {
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const int ep = static_cast<int>(i);
    const std::string& path = endpoints[i].path;
    auto add = [&](const std::string& method, net::HttpHandler h) {
      Status st = http.AddHandler(method, path, std::move(h));
      if (!st.ok()) return InvalidArgument("MCP endpoint " + path + ": " + st.message());
      return st;
    };
    Status st = add("POST", [this, ep](const httplib::Request& req, httplib::Response& res) {
      HandlePost(ep, req, res);
    });
    if (st.ok())
      st = add("DELETE", [this, ep](const httplib::Request& req, httplib::Response& res) {
        HandleDelete(ep, req, res);
      });
    // No standalone server-to-client stream: everything the server sends rides on a POST's
    // response, and clients (Claude Code, the TypeScript SDK) accept 405 here.
    auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "POST, DELETE");
      Reply(res, 405, RpcError(kTransportError, "Method Not Allowed"));
    };
    for (const char* method : {"GET", "PUT", "PATCH", "OPTIONS"})
      if (st.ok()) st = add(method, not_allowed);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

StreamableHttpServer::StreamableHttpServer() : impl_(std::make_unique<Impl>()) {}

StreamableHttpServer::~StreamableHttpServer() { Stop(); }

net::HttpServer& StreamableHttpServer::http() { return impl_->http; }

Status StreamableHttpServer::AddJsonRoute(const std::string& method, const std::string& path,
                                          net::JsonRouteHandler handler, bool raw_body) {
  return impl_->http.AddJsonRoute(method, path, std::move(handler), raw_body);
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
  }
  if (options.threads < 1) options.threads = 1;
  if (options.max_threads < options.threads) options.max_threads = options.threads;
  m.endpoints = std::move(endpoints);
  if (Status st = m.AddEndpointRoutes(); !st.ok()) return st;

  net::HttpServerOptions http;
  http.host = options.host;
  http.port = options.port;
  http.bearer_token = options.bearer_token;
  http.max_body_bytes = options.limits.max_message_bytes;
  http.max_json_depth = options.limits.max_json_depth;
  http.threads = options.threads;
  http.max_threads = options.max_threads;
  http.allowed_hosts = options.allowed_hosts;
  http.rejection_body = McpRejection;
  http.log_name = "mcp http";
  m.sessions = std::make_unique<HttpSessionTable>(options.max_sessions, options.session_idle_ttl,
                                                  options.clock ? *options.clock : RealClock(),
                                                  options.max_sessions_per_peer);
  m.calls = std::make_unique<net::WorkerPool>(std::min(options.threads, 4),
                                              static_cast<size_t>(options.max_threads),
                                              std::chrono::seconds(30));
  m.options = std::move(options);
  if (Status st = m.http.Start(std::move(http)); !st.ok()) {
    m.calls.reset();
    return st;
  }
  m.started = true;
  spdlog::info("mcp http: serving {} endpoint(s)", m.endpoints.size());
  return Status::Ok();
}

int StreamableHttpServer::port() const { return impl_->http.port(); }

void StreamableHttpServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (!m.started) return;
  // Sessions first: their in-flight tool calls are cancelled, so SSE streams end with a response
  // instead of holding their connection threads (which the server's shutdown joins).
  m.sessions->CloseAll();
  m.http.Stop();
  m.sessions->CloseAll();  // any session created while stopping
  m.calls->Shutdown();
  m.started = false;
}

size_t StreamableHttpServer::session_count() const {
  return impl_->sessions ? impl_->sessions->size() : 0;
}

}  // namespace dw::mcp
