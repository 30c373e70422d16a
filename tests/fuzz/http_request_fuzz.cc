// The server side of HTTP as far as it runs without a listening socket: the fast path's request
// head parser and request loop (net/http_fast_route.h) that serves the OpenLineage intake. The
// input is the raw bytes a client sends on one keep-alive connection; they are written into one
// end of a socketpair (then shut for writing, so a short body ends in EOF instead of a wait) and
// the other end is served request by request, as `dw serve` does, with a route that reads the
// body as an OpenLineage event. Properties: the parsed head lies inside the input; a served
// connection answers with an HTTP/1.1 status line; the loop ends.
#include <sys/socket.h>
#include <unistd.h>

#include "graph/openlineage_reader.h"
#include "net/http_fast_route.h"
#include "net/http_server.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

const dw::net::FastRoutes& Routes() {
  static const dw::net::JsonRouteHandler intake = [](const dw::net::JsonRouteRequest& req) {
    dw::net::JsonRouteReply reply;
    auto read = dw::graph::ParseRunEventText(req.raw_body, /*allow_array=*/false, req.max_json_depth);
    reply.status = read.ok() ? 201 : 400;
    if (!read.ok()) reply.body = {{"error", read.status().message()}};
    return reply;
  };
  static const dw::net::FastRoutes routes = [] {
    dw::net::FastRoutes r;
    r.admit = [](const dw::net::FastRequestHead& head) -> const dw::net::JsonRouteHandler* {
      if (head.method != "POST" || head.target != "/api/v1/lineage") return nullptr;
      if (head.content_length == 0 || head.content_length > (1 << 20)) return nullptr;
      return &intake;
    };
    r.max_json_depth = 64;
    r.read_timeout_ms = 200;
    r.write_timeout_ms = 200;
    r.keep_alive = "timeout=5, max=100";
    r.internal_error_body = {{"error", "internal"}};
    r.log_name = "fuzz";
    return r;
  }();
  return routes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = dw::fuzz::AsText(data, std::min<size_t>(size, 64 * 1024));
  dw::net::FastRequestHead head;
  if (dw::net::ParseFastRequestHead(bytes, &head) == dw::net::FastHead::kComplete) {
    if (head.head_bytes > bytes.size()) dw::fuzz::Broken("a head longer than the input");
    for (std::string_view field : {head.method, head.target, head.host, head.origin, head.authorization, head.content_type})
      if (!field.empty() && (field.data() < bytes.data() || field.data() + field.size() > bytes.data() + bytes.size()))
        dw::fuzz::Broken("a head field that points outside the input");
  }

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) dw::fuzz::Broken("socketpair failed");
  const int bigger = 256 * 1024;
  setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &bigger, sizeof bigger);
  setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &bigger, sizeof bigger);
  setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &bigger, sizeof bigger);
  setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &bigger, sizeof bigger);
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = write(fds[0], bytes.data() + sent, bytes.size() - sent);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  shutdown(fds[0], SHUT_WR);
  bool answered = false;
  for (int i = 0; i < 100; ++i) {
    auto outcome = dw::net::ServeFastRequest(fds[1], Routes(), /*last=*/i == 99);
    if (outcome == dw::net::FastOutcome::kServed || outcome == dw::net::FastOutcome::kServedAndClosed) answered = true;
    if (outcome != dw::net::FastOutcome::kServed) break;
  }
  close(fds[1]);
  if (answered) {
    char first[9] = {};
    if (read(fds[0], first, 8) != 8 || std::string_view(first, 8) != "HTTP/1.1")
      dw::fuzz::Broken("a served request whose answer does not start with HTTP/1.1");
  }
  close(fds[0]);
  return 0;
}
