// The Streamable HTTP path of `dw serve` through cpp-httplib: the raw bytes a client sends on one
// keep-alive connection (request lines, headers, Content-Length and chunked bodies, pipelining)
// go through the server's own connection loop (net/http_connection_server.h: the fast path, then
// httplib's request parsing, request by request) into the routes as `dw serve` mounts them: the
// MCP endpoint /mcp (mcp::StreamableHttpServer: sessions, Mcp-Session-Id, MCP-Protocol-Version,
// Accept, JSON or SSE answers, DELETE), the OpenLineage intake POST /api/v1/lineage (raw body, on
// the fast path when it qualifies), GET /healthz, the shared Host/Origin and bearer checks.
//
// No listener and no accept: the bytes are written into one end of a socketpair and
// HttpServer::ServeConnection serves the other end on this thread, as an accepted connection is
// served. (httplib 0.11's process_request takes any httplib::Stream, so httplib's part alone could
// run without a socket; but the fast path peeks at the socket itself, and the production loop
// chooses between the two per request, so a socketpair it is: one syscall per input.) See
// Exchange for how the input goes in and the answers come out without either side blocking.
//
// What the input can name that it could not know:
//   - "@SID@" is replaced by the id of a live session, opened for this input by a real initialize
//     through the same path, so requests after initialize reach tools, resources and prompts;
//   - the bearer token is "fuzz-token-0123456789abcdef" (in the seeds and the dictionary).
// After the input comes a health check with "Connection: close", padded past the connection's
// 4 KiB read-ahead: as with a real client still sending, the server sees a live peer while it
// writes a streamed (SSE) answer. Then the socket is shut for writing, so whatever the input left
// unfinished ends in EOF instead of a read timeout.
//
// The catalog is the conformance fixtures' (`dw serve --conformance-fixtures`) without the four
// tools that sleep or wait a minute for the client's answer, plus one fixture of this target,
// fuzz_log_then_answer, which logs once and answers at once: an SSE answer without a sleep.
// The intake route does what workspace::LineageRoute does (that stage is not in the fuzz build):
// ReadOpenLineageBody, IngestRunEvents into a context graph on a SQLite store, the reply text.
//
// Properties: what the server wrote is a sequence of complete HTTP/1.1 responses; none is a 500
// (a handler failed or threw); a JSON body parses, and a JSON 4xx body carries "error"; every SSE
// event's data is a JSON-RPC 2.0 object; an Mcp-Session-Id is only ever given on a 200; nothing
// is answered after a 401, 403 or 413 (the refused request's unread body is not a request).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "base/clock.h"
#include "graph/context_graph.h"
#include "graph/ingest.h"
#include "mcp/conformance_fixtures.h"
#include "mcp/http_transport.h"
#include "store/state_store.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

constexpr std::string_view kSessionPlaceholder = "@SID@";
constexpr char kToken[] = "fuzz-token-0123456789abcdef";

std::shared_ptr<const dw::mcp::Catalog> FuzzCatalog() {
  dw::mcp::Catalog all;
  dw::mcp::AddConformanceFixtures(all);
  auto catalog = std::make_shared<dw::mcp::Catalog>();
  for (const auto& tool : all.tools()) {
    if (tool.name == "test_tool_with_logging" || tool.name == "test_tool_with_progress" ||
        tool.name == "test_sampling" || tool.name.rfind("test_elicitation", 0) == 0)
      continue;
    (void)catalog->AddTool(tool);
  }
  for (const auto& r : all.resources()) (void)catalog->AddResource(r);
  for (const auto& t : all.resource_templates()) (void)catalog->AddResourceTemplate(t);
  for (const auto& p : all.prompts()) (void)catalog->AddPrompt(p);
  dw::mcp::ToolSpec log;
  log.name = "fuzz_log_then_answer";
  log.description = "Logs one message, then answers (an SSE answer without a sleep)";
  log.input_schema = {{"type", "object"}, {"properties", dw::Json::object()}};
  log.streams = true;
  log.handler = [](const dw::Json&, dw::mcp::ToolCall& call) {
    call.Log(dw::mcp::LogLevel::kInfo, "fuzz: logged before the answer");
    return dw::mcp::ToolResult::Text("answered after one log message");
  };
  (void)catalog->AddTool(std::move(log));
  return catalog;
}

// The server, its store and graph: started once per process, like `dw serve`.
struct Served {
  dw::SimulatedClock clock{dw::TimePoint{}};
  std::unique_ptr<dw::store::StateStore> store;
  std::unique_ptr<dw::graph::ContextGraph> graph;
  dw::mcp::StreamableHttpServer server;
};

dw::net::JsonRouteReply Intake(dw::graph::ContextGraph& graph, const dw::net::JsonRouteRequest& request) {
  std::string_view text = request.raw_body;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {400, dw::Json{{"error", "$: the body is empty; send an OpenLineage run event"}}, ""};
  auto read = dw::graph::ReadOpenLineageBody(text, request.max_json_depth);
  if (!read.ok()) return {400, dw::Json{{"error", read.status().message()}}, ""};
  auto r = dw::graph::IngestRunEvents(graph, *read);
  if (!r.ok()) {
    const dw::StatusCode code = r.status().code();
    int status = code == dw::StatusCode::kInvalidArgument ? 400 : code == dw::StatusCode::kUnavailable ? 503 : 500;
    return {status, dw::Json{{"error", r.status().message()}}, ""};
  }
  return {201, dw::Json::object(), dw::graph::IngestedEventsText(*r)};
}

Served& Server() {
  static Served* served = [] {
    auto* s = new Served;
    auto store = dw::store::OpenStateStore((dw::fuzz::ScratchDir() / "state.db").string(), s->clock);
    if (!store.ok()) dw::fuzz::Broken("the state store did not open");
    s->store = std::move(store).value();
    auto graph = dw::graph::ContextGraph::Load(s->store.get(), s->clock);
    if (!graph.ok()) dw::fuzz::Broken("the context graph did not load");
    s->graph = std::move(graph).value();
    dw::graph::ContextGraph* g = s->graph.get();
    if (!s->server.AddJsonRoute("POST", "/api/v1/lineage",
                                [g](const dw::net::JsonRouteRequest& req) { return Intake(*g, req); },
                                /*raw_body=*/true).ok())
      dw::fuzz::Broken("the intake route was refused");
    dw::mcp::HttpServerOptions options;
    options.bearer_token = kToken;
    options.allowed_hosts = {"desk.example"};
    options.limits.max_message_bytes = 64 * 1024;
    options.limits.max_json_depth = 32;
    options.limits.tools_page_size = 3;
    options.limits.client_request_timeout = std::chrono::milliseconds(10);
    options.threads = 2;
    options.max_sessions = 32;  // the least recently used idle session makes room: bounded memory
    options.clock = &s->clock;
    std::vector<dw::mcp::McpEndpoint> endpoints;
    endpoints.push_back({"/mcp", FuzzCatalog(), {"dw-fuzz", "Fuzz", "0", ""}});
    if (!s->server.Start(options, std::move(endpoints)).ok()) dw::fuzz::Broken("the server did not start");
    return s;
  }();
  return *served;
}

// Reads `fd` until EOF into `answer`.
void ReadAll(int fd, std::string* answer) {
  char buf[64 * 1024];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    answer->append(buf, static_cast<size_t>(n));
  }
}

// Writes `bytes` into a connection served by the server on this thread; returns every byte the
// server wrote back before it closed the connection. When this process may size socket buffers
// past the system limit (SO_SNDBUFFORCE: root, as in CI's container), the input is written whole
// and the answers read after the server is done: no second thread, no hand-off between threads
// per read and write, which on a loaded host cost more than the rest of the input. Otherwise a
// helper thread writes and reads while the server runs, so neither side waits on a full buffer.
std::string Exchange(const std::string& bytes) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) dw::fuzz::Broken("socketpair failed");
  // 64 MiB each way: past the most the server can write for 64 KiB of input (one short 400 for
  // every line of it) and past any input, so neither side ever blocks on the other.
  const int huge = 64 << 20;
  const bool roomy = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUFFORCE, &huge, sizeof huge) == 0 &&
                     setsockopt(fds[1], SOL_SOCKET, SO_SNDBUFFORCE, &huge, sizeof huge) == 0;
  std::string answer;
  if (roomy) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = send(fds[0], bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) dw::fuzz::Broken("the input did not fit the socket buffer");
      sent += static_cast<size_t>(n);
    }
    shutdown(fds[0], SHUT_WR);
    if (!Server().server.http().ServeConnection(fds[1]).ok()) dw::fuzz::Broken("the connection was not served");
    ReadAll(fds[0], &answer);
    close(fds[0]);
    return answer;
  }
  std::thread client([fd = fds[0], &bytes, &answer] {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    size_t sent = 0;
    bool shut = false;
    char buf[16 * 1024];
    for (;;) {
      if (!shut && sent == bytes.size()) {
        shutdown(fd, SHUT_WR);
        shut = true;
      }
      pollfd p{fd, static_cast<short>(POLLIN | (shut ? 0 : POLLOUT)), 0};
      if (poll(&p, 1, -1) < 0) continue;
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
        if (n > 0) answer.append(buf, static_cast<size_t>(n));
      }
      if (!shut && (p.revents & POLLOUT)) {
        ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<size_t>(n);
        else if (n < 0 && errno != EAGAIN && errno != EINTR) sent = bytes.size();  // the server closed
      }
    }
    close(fd);
  });
  if (!Server().server.http().ServeConnection(fds[1]).ok()) dw::fuzz::Broken("the connection was not served");
  client.join();
  return answer;
}

struct Response {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names in lower case
  std::string body;
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Header(const Response& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

// Splits what the server wrote into responses; false when it is not a sequence of complete
// HTTP/1.1 responses. A Content-Length with no body after it (the end, or the next response) is
// a HEAD answer.
bool ParseResponses(std::string_view in, std::vector<Response>* out) {
  while (!in.empty()) {
    if (in.substr(0, 9) != "HTTP/1.1 " || in.size() < 12) return false;
    const size_t head_end = in.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return false;
    Response r;
    r.status = std::atoi(std::string(in.substr(9, 3)).c_str());
    std::string_view head = in.substr(0, head_end + 2);
    head.remove_prefix(head.find("\r\n") + 2);
    while (!head.empty()) {
      const size_t eol = head.find("\r\n");
      std::string_view line = head.substr(0, eol);
      head.remove_prefix(eol + 2);
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) return false;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      r.headers.emplace(Lower(std::string(line.substr(0, colon))), std::string(value));
    }
    in.remove_prefix(head_end + 4);
    const bool bodiless = r.status < 200 || r.status == 204 || r.status == 304;
    if (!bodiless && Lower(Header(r, "transfer-encoding")) == "chunked") {
      for (;;) {
        const size_t eol = in.find("\r\n");
        if (eol == std::string_view::npos) return false;
        const std::string size_text(in.substr(0, eol));
        if (size_text.empty() || size_text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
          return false;
        const size_t size = std::stoul(size_text, nullptr, 16);
        in.remove_prefix(eol + 2);
        if (in.size() < size + 2 || in.substr(size, 2) != "\r\n") return false;
        r.body.append(in.substr(0, size));
        in.remove_prefix(size + 2);
        if (size == 0) break;
      }
    } else if (!bodiless && r.headers.count("content-length")) {
      const size_t length = std::stoul(Header(r, "content-length"));
      if (length > 0 && (in.empty() || in.substr(0, 9) == "HTTP/1.1 ")) {
        // HEAD: the length of a body not sent.
      } else {
        if (in.size() < length) return false;
        r.body = std::string(in.substr(0, length));
        in.remove_prefix(length);
      }
    }
    out->push_back(std::move(r));
  }
  return true;
}

void Check(const Response& r) {
  if (r.status == 500) dw::fuzz::Broken("a 500: a handler failed or threw");
  if (r.headers.count("mcp-session-id") && r.status != 200) dw::fuzz::Broken("a session id given on a non-200");
  const std::string type = Lower(Header(r, "content-type"));
  if (type.rfind("application/json", 0) == 0 && !r.body.empty()) {
    dw::Json body = dw::Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) dw::fuzz::Broken("a JSON answer whose body is not JSON");
    if (r.status >= 400 && !(body.is_object() && body.contains("error")))
      dw::fuzz::Broken("a JSON 4xx answer without \"error\"");
  }
  if (type.rfind("text/event-stream", 0) == 0) {
    std::string_view rest = r.body;
    for (size_t at; (at = rest.find("data: ")) != std::string_view::npos;) {
      rest.remove_prefix(at + 6);
      const std::string_view data = rest.substr(0, rest.find('\n'));
      dw::Json m = dw::Json::parse(data, nullptr, /*allow_exceptions=*/false);
      if (!m.is_object() || m.value("jsonrpc", "") != "2.0") dw::fuzz::Broken("an SSE event that is not JSON-RPC 2.0");
    }
  }
}

// A live session's id, opened by a real initialize through the same path.
std::string OpenSession() {
  const std::string body =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}})";
  const std::string request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                              std::string(kToken) +
                              "\r\nContent-Type: application/json\r\nAccept: application/json, "
                              "text/event-stream\r\nConnection: close\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  std::vector<Response> answers;
  if (!ParseResponses(Exchange(request), &answers) || answers.size() != 1 || answers[0].status != 200)
    dw::fuzz::Broken("a well-formed initialize was not answered 200");
  std::string id = Header(answers[0], "mcp-session-id");
  if (id.empty()) dw::fuzz::Broken("a well-formed initialize opened no session");
  return id;
}

const std::string& Trailer() {
  static const std::string trailer = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " +
                                     std::string(4000, 'p') + "\r\nX-Pad: " + std::string(4000, 'p') +
                                     "\r\nX-Pad: " + std::string(1000, 'p') +
                                     "\r\nConnection: close\r\n\r\n";
  return trailer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(dw::fuzz::AsText(data, std::min<size_t>(size, 64 * 1024)));
  if (bytes.find(kSessionPlaceholder) != std::string::npos) {
    const std::string id = OpenSession();
    for (size_t at; (at = bytes.find(kSessionPlaceholder)) != std::string::npos;)
      bytes.replace(at, kSessionPlaceholder.size(), id);
  }
  bytes += Trailer();
  const std::string answer = Exchange(bytes);
  // DW_FUZZ_SHOW=1 prints what the server wrote (replaying one input to see what it reached).
  static const bool show = std::getenv("DW_FUZZ_SHOW") != nullptr;
  if (show) std::fprintf(stderr, "---- answer (%zu bytes)\n%s\n", answer.size(), answer.c_str());
  std::vector<Response> answers;
  if (!ParseResponses(answer, &answers))
    dw::fuzz::Broken("the server wrote something that is not a sequence of complete HTTP/1.1 responses");
  for (size_t i = 0; i < answers.size(); ++i) {
    Check(answers[i]);
    // A request refused before its body is read (401, 403) or part-way through it (413) ends the
    // connection: what follows on it is that body, never a request to serve.
    const int status = answers[i].status;
    if ((status == 401 || status == 403 || status == 413) && i + 1 < answers.size())
      dw::fuzz::Broken("a request answered after a refused one on the same connection");
  }
  return 0;
}
