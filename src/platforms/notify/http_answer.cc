#include "platforms/notify/http_answer.h"

#include <algorithm>
#include <cctype>

#include "base/log.h"

namespace dw::platforms::notify {
namespace {

std::string HostOf(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  size_t start = scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  auto at = authority.rfind('@');
  if (at != std::string::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority[0] == '[') return authority.substr(0, authority.find(']') + 1);
  return authority.substr(0, authority.find(':'));
}

// Judged by the body: Slack's incoming webhooks label their plain "ok" text/html.
bool LooksLikeHtml(const net::HttpResponse& r) {
  auto first = r.body.find_first_not_of(" \t\r\n");
  return first != std::string::npos && r.body[first] == '<';
}

// True iff libcurl's error says the request never left (no connection, no name, no TLS session):
// the service cannot have acted on it.
bool NeverSent(const std::string& curl_error) {
  for (const char* words : {"Couldn't connect", "Could not resolve", "Couldn't resolve", "SSL", "TLS",
                            "certificate", "Connection refused", "Failed to connect"})
    if (curl_error.find(words) != std::string::npos) return true;
  return false;
}

}  // namespace

bool IsLoopbackUrl(const std::string& url) {
  std::string host = HostOf(url);
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

Status CheckServiceUrl(const std::string& what, const std::string& url) {
  if (url.rfind("https://", 0) == 0) return Status::Ok();
  if (url.rfind("http://", 0) == 0 && IsLoopbackUrl(url)) return Status::Ok();
  return InvalidArgument(what + " must be an https:// URL (http:// only to a loopback host): "
                         "the request carries a credential");
}

net::HttpRequest JsonPost(const std::string& url, const Json& body, const SendContext& ctx) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  req.headers.push_back({"Content-Type", "application/json; charset=utf-8"});
  // libcurl would send "Expect: 100-continue" for a body over 1 KiB and wait up to a second for
  // an interim answer many servers never send; the bodies here are small, send them at once.
  req.headers.push_back({"Expect", ""});
  req.timeout = ctx.timeout;
  req.max_response_bytes = kMaxAnswerBytes;
  req.max_attempts = 1;  // the outbox retries, and records every attempt
  return req;
}

std::string Excerpt(const std::string& body, size_t n) {
  std::string out = body.substr(0, n);
  std::replace_if(out.begin(), out.end(), [](unsigned char c) { return c == '\n' || c == '\r'; }, ' ');
  if (body.size() > n) out += "...";
  return RedactSecrets(out);
}

Delivery FromTransportError(const std::string& service, const Status& status) {
  Delivery d;
  // The HTTP client names the URL; a webhook URL is a secret, so only the service is named here.
  std::string why;
  switch (status.code()) {
    case StatusCode::kDeadlineExceeded:
      d.outcome = Delivery::Outcome::kRetry;
      d.may_have_landed = true;
      why = "timed out";
      break;
    case StatusCode::kUnavailable:
      d.outcome = Delivery::Outcome::kRetry;
      d.may_have_landed = !NeverSent(status.message());
      why = d.may_have_landed ? "lost the connection before its answer" : "unreachable (connection, DNS or TLS failure)";
      break;
    case StatusCode::kResourceExhausted:
      d.outcome = Delivery::Outcome::kRefused;
      why = "answered with a body larger than " + std::to_string(kMaxAnswerBytes) + " bytes";
      break;
    default:
      d.outcome = Delivery::Outcome::kRefused;
      why = "request refused before sending";
      break;
  }
  std::string message = status.message();
  auto colon = message.find(": ");  // "POST <url>: <curl error>": drop the URL part
  if (colon != std::string::npos) message = message.substr(colon + 2);
  d.detail = service + " " + why + ": " + RedactSecrets(message);
  return d;
}

std::optional<Delivery> JudgeCommon(const std::string& service, const net::HttpResponse& r) {
  Delivery d;
  const std::string status = std::to_string(r.status);
  if (r.status >= 300 && r.status < 400) {
    auto loc = r.headers.find("location");
    std::string host = loc == r.headers.end() ? "" : HostOf(loc->second);
    d.outcome = Delivery::Outcome::kRefused;
    d.detail = service + " answered HTTP " + status + " redirecting to " +
               (host.empty() ? "another address" : "host " + RedactSecrets(host)) +
               "; not followed (the request carries a credential): check the configured URL";
    return d;
  }
  if (r.status == 429) {
    d.outcome = Delivery::Outcome::kRetry;
    auto ra = r.headers.find("retry-after");
    if (ra != r.headers.end() && !ra->second.empty() &&
        std::all_of(ra->second.begin(), ra->second.end(), [](unsigned char c) { return std::isdigit(c); }))
      d.retry_after = std::chrono::seconds(std::stoll(ra->second.substr(0, 9)));
    d.detail = service + " is rate limiting (HTTP 429" +
               (d.retry_after ? ", Retry-After " + ra->second + " s" : std::string()) + ")";
    return d;
  }
  if (LooksLikeHtml(r)) {
    d.outcome = r.status >= 500 ? Delivery::Outcome::kRetry : Delivery::Outcome::kRefused;
    d.may_have_landed = r.status >= 500;
    d.detail = service + " answered HTTP " + status + " with an HTML page instead of its API's answer "
               "(a proxy, captive portal or login page?): " + Excerpt(r.body, 120);
    return d;
  }
  if (r.status >= 500) {
    // A 5xx may come after the work was done (a proxy timing out, a crash after the write).
    d.outcome = Delivery::Outcome::kRetry;
    d.may_have_landed = true;
    d.detail = service + " answered HTTP " + status + ": " + Excerpt(r.body);
    return d;
  }
  return std::nullopt;
}

}  // namespace dw::platforms::notify
