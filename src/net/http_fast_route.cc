#include "net/http_fast_route.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <exception>

#include "base/log.h"
#include "net/socket_wait.h"

namespace dw::net {
namespace {

bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool EqualsLower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != lower[i]) return false;
  return true;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Visible ASCII, spaces and tabs only (no CR, LF, NUL or other controls inside a line).
bool PlainLine(std::string_view s) {
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return false;
  }
  return true;
}

}  // namespace

FastHead ParseFastRequestHead(std::string_view data, FastRequestHead* out) {
  const size_t end = data.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    // A bare LF anywhere before the blank line makes this a head the fast path does not read.
    for (size_t i = 0; i < data.size(); ++i)
      if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')) return FastHead::kNotFast;
    return FastHead::kIncomplete;
  }
  *out = FastRequestHead();
  out->head_bytes = end + 4;
  std::string_view head = data.substr(0, end + 2);  // every line ends with CRLF
  size_t eol = head.find("\r\n");
  std::string_view line = head.substr(0, eol);
  if (!PlainLine(line)) return FastHead::kNotFast;
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      line.find(' ', sp2 + 1) != std::string_view::npos)
    return FastHead::kNotFast;
  out->method = line.substr(0, sp1);
  out->target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (line.substr(sp2 + 1) != "HTTP/1.1" || out->method.empty() || out->target.empty())
    return FastHead::kNotFast;
  for (char c : out->method)
    if (!IsTokenChar(c)) return FastHead::kNotFast;
  int content_length_count = 0, content_type_count = 0;
  for (size_t pos = eol + 2; pos < head.size();) {
    size_t next = head.find("\r\n", pos);
    line = head.substr(pos, next - pos);
    pos = next + 2;
    if (line.empty() || line.front() == ' ' || line.front() == '\t' || !PlainLine(line))
      return FastHead::kNotFast;  // obsolete folding, or a bare LF / control inside a line
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return FastHead::kNotFast;
    std::string_view name = line.substr(0, colon);
    for (char c : name)
      if (!IsTokenChar(c)) return FastHead::kNotFast;
    std::string_view value = TrimSpaces(line.substr(colon + 1));
    if (EqualsLower(name, "host")) {
      ++out->host_count;
      out->host = value;
    } else if (EqualsLower(name, "origin")) {
      ++out->origin_count;
      out->origin = value;
    } else if (EqualsLower(name, "authorization")) {
      ++out->authorization_count;
      out->authorization = value;
    } else if (EqualsLower(name, "content-type")) {
      ++content_type_count;
      out->content_type = value;
    } else if (EqualsLower(name, "content-length")) {
      if (++content_length_count > 1 || value.empty() || value.size() > 15) return FastHead::kNotFast;
      size_t n = 0;
      for (char c : value) {
        if (c < '0' || c > '9') return FastHead::kNotFast;
        n = n * 10 + static_cast<size_t>(c - '0');
      }
      out->content_length = n;
    } else if (EqualsLower(name, "transfer-encoding") || EqualsLower(name, "content-encoding") ||
               EqualsLower(name, "expect")) {
      return FastHead::kNotFast;
    } else if (EqualsLower(name, "connection")) {
      if (EqualsLower(value, "close")) out->close = true;
    }
  }
  if (content_length_count != 1 || content_type_count > 1) return FastHead::kNotFast;
  return FastHead::kComplete;
}

namespace {

// Appends exactly `size` more bytes to `out`, growing it as they arrive (a declared length is not
// trusted with memory up front); false when the peer closes, fails, is silent for `timeout_ms` or
// has not sent them all by `limit_ms` (> 0) after the call.
bool RecvAppend(int sock, std::string* out, size_t size, int timeout_ms, int limit_ms) {
  char chunk[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (size_t got = 0; got < size;) {
    if (limit_ms > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      timeout_ms = std::min<int>(timeout_ms, static_cast<int>(left.count()) + 1);
    }
    ssize_t n = ::recv(sock, chunk, std::min(size - got, sizeof chunk), MSG_DONTWAIT);
    if (n > 0) {
      out->append(chunk, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      return false;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!WaitForSocket(sock, POLLIN, timeout_ms)) return false;
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

bool SendAll(int sock, const std::string& data, int timeout_ms) {
  for (size_t sent = 0; sent < data.size();) {
    ssize_t n = ::send(sock, data.data() + sent, data.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!WaitForSocket(sock, POLLOUT, timeout_ms)) return false;
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return status < 400 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

}  // namespace

FastOutcome ServeFastRequest(int sock, const FastRoutes& routes, bool last) {
  // The head is peeked, not read: until the request is known to be ours, httplib can still have it.
  // A body up to this size usually comes in the same peek and is then read with the head at once.
  constexpr size_t kPeekBytes = 16384;
  char peek[kPeekBytes];
  ssize_t n;
  do {
    n = ::recv(sock, peek, sizeof peek, MSG_PEEK | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return FastOutcome::kBroken;  // the peer closed between requests
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? FastOutcome::kNotServed : FastOutcome::kBroken;
  FastRequestHead head;
  // An incomplete head (split across reads) is left to httplib, which waits for the rest.
  if (ParseFastRequestHead(std::string_view(peek, static_cast<size_t>(n)), &head) != FastHead::kComplete)
    return FastOutcome::kNotServed;
  const JsonRouteHandler* handler = routes.admit(head);
  if (handler == nullptr) return FastOutcome::kNotServed;

  // Ours from here on: the head and body are consumed.
  std::string request;
  request.reserve(std::min(head.head_bytes + head.content_length, static_cast<size_t>(n)));
  if (!RecvAppend(sock, &request, head.head_bytes + head.content_length, routes.read_timeout_ms,
                  routes.request_read_limit_ms))
    return FastOutcome::kBroken;
  JsonRouteRequest r;
  r.method = std::string(head.method);
  r.path = std::string(head.target);
  r.raw_body = std::string_view(request).substr(head.head_bytes);
  r.max_json_depth = routes.max_json_depth;
  JsonRouteReply reply;
  try {
    reply = (*handler)(r);
  } catch (const std::exception& e) {
    spdlog::error("{}: handler failed: {}", routes.log_name, RedactSecrets(e.what()));
    reply = {500, routes.internal_error_body};
  }
  const std::string body = !reply.text.empty() ? std::move(reply.text)
                                                : reply.body.dump(-1, ' ', false, Json::error_handler_t::replace);
  const bool close = last || head.close;
  std::string out;
  out.reserve(160 + body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(reply.status);
  out += ' ';
  out += Reason(reply.status);
  out += "\r\nContent-Type: application/json\r\nContent-Length: ";
  out += std::to_string(body.size());
  out += close ? "\r\nConnection: close\r\n\r\n" : "\r\nKeep-Alive: " + routes.keep_alive + "\r\n\r\n";
  out += body;
  if (!SendAll(sock, out, routes.write_timeout_ms)) return FastOutcome::kBroken;
  return close ? FastOutcome::kServedAndClosed : FastOutcome::kServed;
}

}  // namespace dw::net
