#include "platforms/platform_call.h"

#include <algorithm>
#include <cctype>

#include "base/log.h"
#include "base/url_redaction.h"

namespace dw::platforms {
namespace {

const char* TypeName(const Json& j) { return j.type_name(); }

const Json& Member(const Json& j, std::string_view key) {
  if (!j.is_object()) throw ResponseShapeError("expected an object holding \"" + std::string(key) +
                                               "\", got " + TypeName(j));
  auto it = j.find(key);
  if (it == j.end()) throw ResponseShapeError("field \"" + std::string(key) + "\" is missing");
  return *it;
}

[[noreturn]] void WrongType(std::string_view key, const char* want, const Json& got) {
  throw ResponseShapeError("field \"" + std::string(key) + "\" should be " + want + ", got " +
                           TypeName(got));
}

bool LooksLikeHtml(const net::HttpResponse& resp) {
  auto ct = resp.headers.find("content-type");
  if (ct != resp.headers.end() && ct->second.find("text/html") != std::string::npos) return true;
  auto first = resp.body.find_first_not_of(" \t\r\n");
  return first != std::string::npos && resp.body[first] == '<';
}

// The platform's own error message, from whichever of the known error bodies this is.
std::string PlatformMessage(const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "";
  if (auto e = j.find("errors"); e != j.end() && e->is_array()) {
    std::string out;
    for (const auto& m : *e) {
      if (!m.is_string()) continue;
      std::string s = m.get<std::string>();
      auto nl = s.find('\n');  // Flink puts whole stack traces here; the first line says it
      if (nl != std::string::npos) s = s.substr(0, nl);
      if (!out.empty()) out += "; ";
      out += s;
    }
    return out;
  }
  if (auto m = j.find("message"); m != j.end() && m->is_string()) return m->get<std::string>();
  return "";
}

std::string Truncated(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

}  // namespace

std::string StringField(const Json& j, std::string_view key) {
  const Json& v = Member(j, key);
  if (!v.is_string()) WrongType(key, "a string", v);
  return v.get<std::string>();
}

int64_t IntField(const Json& j, std::string_view key) {
  const Json& v = Member(j, key);
  if (!v.is_number_integer()) WrongType(key, "an integer", v);
  return v.get<int64_t>();
}

bool BoolField(const Json& j, std::string_view key) {
  const Json& v = Member(j, key);
  if (!v.is_boolean()) WrongType(key, "a boolean", v);
  return v.get<bool>();
}

const Json& ArrayField(const Json& j, std::string_view key) {
  const Json& v = Member(j, key);
  if (!v.is_array()) WrongType(key, "an array", v);
  return v;
}

const Json& ObjectField(const Json& j, std::string_view key) {
  const Json& v = Member(j, key);
  if (!v.is_object()) WrongType(key, "an object", v);
  return v;
}

std::string OptStringField(const Json& j, std::string_view key, std::string fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) WrongType(key, "a string", *it);
  return it->get<std::string>();
}

int64_t OptIntField(const Json& j, std::string_view key, int64_t fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) WrongType(key, "an integer", *it);
  return it->get<int64_t>();
}

void RequireObject(const Json& j, std::string_view what) {
  if (!j.is_object())
    throw ResponseShapeError(std::string(what) + " should be a JSON object, got " + TypeName(j));
}

PlatformCall::PlatformCall(const config::PlatformConfig& platform, net::HttpClient& http)
    : platform_(platform), http_(http) {}

std::string PlatformCall::Label() const { return platform_.type + " '" + platform_.name + "'"; }

std::string PlatformCall::Url(const std::vector<std::string>& segments, std::string_view query) const {
  std::string url = net::JoinUrl(platform_.url, segments);
  if (!query.empty()) {
    url += '?';
    url += query;
  }
  return url;
}

net::HttpRequest PlatformCall::Request(std::string method, std::string url) const {
  net::HttpRequest req;
  req.method = std::move(method);
  req.url = std::move(url);
  req.timeout = platform_.timeout;
  req.connect_timeout = std::min(platform_.timeout, std::chrono::milliseconds(3000));
  req.max_attempts = 3;
  req.headers.push_back({"Accept", "application/json"});
  if (!platform_.token.empty()) {
    req.bearer_token = platform_.token;
  } else if (!platform_.username.empty()) {
    req.basic_user = platform_.username;
    req.basic_password = platform_.password;
  }
  return req;
}

Status PlatformCall::StatusFromResponse(const std::string& method, const std::string& url,
                                        const net::HttpResponse& resp) const {
  std::string where = Label() + ": " + method + " " + RedactUrl(url);
  long code = resp.status;
  if (LooksLikeHtml(resp)) {
    return Status(code >= 200 && code < 300 ? StatusCode::kDataLoss : StatusCode::kUnavailable,
                  where + ": HTTP " + std::to_string(code) +
                      " with an HTML page instead of JSON (a proxy or login page in front of the "
                      "platform?); check the platform URL");
  }
  std::string msg = RedactSecrets(Truncated(PlatformMessage(resp.body), 300));
  std::string detail = where + ": HTTP " + std::to_string(code) + (msg.empty() ? "" : ": " + msg);
  if (code == 401 || code == 403)
    return PermissionDenied(detail + "; set username/password or token for platform '" +
                            platform_.name + "' in the workspace");
  if (code == 404) return NotFound(detail);
  if (code == 409) return FailedPrecondition(detail + " (conflict, e.g. a rebalance; retry later)");
  if (code == 429) return Unavailable(detail + " (rate limited; retried and gave up)");
  if (code >= 500) return Unavailable(detail + " (server error; retried and gave up)");
  return InvalidArgument(detail);
}

Status PlatformCall::ShapeError(std::string_view endpoint, std::string_view what) const {
  return DataLoss(Label() + ": " + std::string(endpoint) + ": unexpected response: " +
                  Truncated(std::string(what), 300));
}

Result<Json> PlatformCall::GetJson(const std::vector<std::string>& segments,
                                   std::string_view query) const {
  auto req = Request("GET", Url(segments, query));
  auto resp = http_.Send(req);
  if (!resp.ok()) return Status(resp.status().code(), Label() + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299 || LooksLikeHtml(*resp))
    return StatusFromResponse("GET", req.url, *resp);
  Json j = Json::parse(resp->body, nullptr, false);
  if (j.is_discarded())
    return DataLoss(Label() + ": GET " + RedactUrl(req.url) + ": the body is not valid JSON (" +
                    std::to_string(resp->body.size()) + " bytes)");
  return j;
}

Result<Json> PlatformCall::PostJson(const std::vector<std::string>& segments, std::string_view query,
                                    const Json& body, std::string_view content_type) const {
  auto req = Request("POST", Url(segments, query));
  req.max_attempts = 1;  // a POST is not replayed
  req.body = body.dump();
  req.headers.push_back({"Content-Type", std::string(content_type)});
  auto resp = http_.Send(req);
  if (!resp.ok()) return Status(resp.status().code(), Label() + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299 || LooksLikeHtml(*resp))
    return StatusFromResponse("POST", req.url, *resp);
  Json j = Json::parse(resp->body, nullptr, false);
  if (j.is_discarded())
    return DataLoss(Label() + ": POST " + RedactUrl(req.url) + ": the body is not valid JSON");
  return j;
}

Result<StreamOutcome> PlatformCall::GetStream(const std::vector<std::string>& segments,
                                              size_t max_bytes,
                                              const std::function<bool(std::string_view)>& sink) const {
  auto req = Request("GET", Url(segments));
  req.headers.clear();
  req.headers.push_back({"Accept", "text/plain"});
  req.max_response_bytes = max_bytes;
  req.body_sink = sink;
  auto resp = http_.Send(req);
  if (!resp.ok()) return Status(resp.status().code(), Label() + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299) return StatusFromResponse("GET", req.url, *resp);
  return StreamOutcome{resp->streamed_bytes, resp->truncated};
}

}  // namespace dw::platforms
