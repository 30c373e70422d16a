// The fast path for plain JSON routes that take a raw body (the OpenLineage intake): a keep-alive
// connection whose requests are ordinary HTTP/1.1 POSTs to such a route is served without
// cpp-httplib's per-request machinery (a poll before every read and write, a header multimap,
// regex routing, getpeername/getsockname, the response head and body in two sends). That
// machinery cost the intake about a quarter of its CPU at one event per request.
//
// Anything else is left to httplib, untouched: the fast path only PEEKS at a request's head and
// consumes nothing until it has decided to serve it, so at the first request it does not serve
// (another path or method, gzip or chunked bodies, Expect, HTTP/1.0, a head split across reads,
// a Host/Origin/bearer check that fails, a body over the limit...) it hands the connection, with
// that request still unread, to httplib for the rest of the connection's life. Every error answer
// (401, 403, 413, 415) therefore still comes from the one place that writes them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "net/http_server.h"

namespace dw::net {

// What the fast path needs from one request head.
struct FastRequestHead {
  std::string_view method;
  std::string_view target;       // as sent, e.g. "/api/v1/lineage"
  size_t head_bytes = 0;         // request line + headers + the blank line
  size_t content_length = 0;
  int host_count = 0;
  std::string_view host;
  int origin_count = 0;
  std::string_view origin;
  int authorization_count = 0;
  std::string_view authorization;
  std::string_view content_type;  // empty when absent
  bool close = false;             // "Connection: close"
};

enum class FastHead {
  kComplete,    // *out is filled
  kIncomplete,  // no blank line yet
  kNotFast,     // leave this request (and its connection) to httplib
};

// Parses the head at the start of `data` (the bytes a connection has for its next request).
// kNotFast for anything the fast path does not serve: a version other than HTTP/1.1, a request
// line or header line that is not plain (bare LF, obsolete line folding, no colon, a name that is
// not a token, control characters), Transfer-Encoding, Content-Encoding, Expect, a missing,
// repeated or non-numeric Content-Length, a repeated Content-Type.
FastHead ParseFastRequestHead(std::string_view data, FastRequestHead* out);

// What the server lets the fast path serve.
struct FastRoutes {
  // The handler of a complete request head, or nullptr when httplib must serve the request: no
  // raw-body JSON route at that method and exact path, or one of the checks httplib's path makes
  // first fails (Host, Origin, bearer token, Content-Type, empty body or over the size limit).
  std::function<const JsonRouteHandler*(const FastRequestHead&)> admit;
  int max_json_depth = 0;
  int read_timeout_ms = 5000;
  int write_timeout_ms = 5000;
  // The whole request (head and body) must have arrived within this long of the call; 0: no limit
  // beyond read_timeout_ms per wait (a body trickled a byte at a time would hold a thread for ever).
  int request_read_limit_ms = 0;
  std::string keep_alive;  // the Keep-Alive header value httplib sends, e.g. "timeout=5, max=100000"
  Json internal_error_body;  // the 500 body when a handler throws (the server's rejection shape)
  std::string log_name = "http";
};

enum class FastOutcome {
  kServed,           // one request answered; the connection stays open
  kServedAndClosed,  // answered with "Connection: close" (asked for, or the last one allowed)
  kNotServed,        // nothing read: httplib serves this request
  kBroken,           // the peer closed, timed out or failed mid-request: close the connection
};

// Serves the next request on `sock` when it is a fast one. REQUIRES: `sock` is readable (a
// request, or the peer's close, is pending). `last`: the connection's last request (answer with
// "Connection: close"). A handler that throws is answered 500, like httplib's exception handler.
FastOutcome ServeFastRequest(int sock, const FastRoutes& routes, bool last);

}  // namespace dw::net
