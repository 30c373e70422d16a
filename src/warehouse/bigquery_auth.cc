#include "warehouse/bigquery_auth.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "base/json.h"
#include "base/redaction.h"
#include "base/url_redaction.h"
#include "warehouse/rs256_jwt.h"

namespace dw::warehouse {
namespace {

constexpr char kGrantType[] = "urn:ietf:params:oauth:grant-type:jwt-bearer";

int64_t UnixSeconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// A string field of an untrusted JSON object, or "" when it is absent or not a string.
std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Form-encodes one value (application/x-www-form-urlencoded).
std::string FormEncode(std::string_view v) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : v) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

Result<ServiceAccountKey> ReadServiceAccountKey(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the service-account key file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  Json j = Json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return InvalidArgument("the service-account key file " + path + " is not a JSON object");
  ServiceAccountKey key;
  key.private_key_pem = StringField(j, "private_key");
  // Registered before anything else can fail: the key must never be quoted.
  RegisterSecret(key.private_key_pem);
  key.client_email = StringField(j, "client_email");
  key.token_uri = StringField(j, "token_uri");
  if (key.private_key_pem.empty())
    return InvalidArgument("the service-account key file " + path + " has no string 'private_key'");
  if (key.client_email.empty())
    return InvalidArgument("the service-account key file " + path + " has no string 'client_email'");
  if (key.token_uri.empty()) key.token_uri = "https://oauth2.googleapis.com/token";
  return key;
}

Result<std::string> SignServiceAccountJwt(const ServiceAccountKey& key, const std::string& audience,
                                          const std::string& scope, TimePoint now) {
  const int64_t iat = UnixSeconds(now);
  Result<std::string> jwt = SignRs256Jwt(key.private_key_pem, {{"iss", key.client_email}, {"scope", scope},
                                                               {"aud", audience}, {"iat", iat}, {"exp", iat + 3600}});
  if (!jwt.ok() && jwt.status().code() == StatusCode::kInvalidArgument)
    return InvalidArgument("the service account's private_key is not an RSA private key in PEM form");
  return jwt;
}

GoogleTokenSource::GoogleTokenSource(ServiceAccountKey key, std::string token_url, const Clock& clock)
    : key_(std::move(key)), token_url_(token_url.empty() ? key_.token_uri : std::move(token_url)), clock_(clock) {}

Result<std::string> GoogleTokenSource::Token(HttpClient& http) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!token_.empty() && clock_.Now() + kRefreshMargin < expires_) return token_;
  return Fetch(http);
}

void GoogleTokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  token_.clear();
}

// REQUIRES: mu_ held. One grant; a 5xx or unreachable endpoint is retried by the HTTP client.
Result<std::string> GoogleTokenSource::Fetch(HttpClient& http) {
  const TimePoint now = clock_.Now();
  Result<std::string> jwt =
      SignServiceAccountJwt(key_, token_url_, "https://www.googleapis.com/auth/bigquery", now);
  if (!jwt.ok()) return jwt.status();
  RegisterSecret(*jwt);  // a signed assertion is worth a token for an hour
  HttpRequest req;
  req.method = "POST";
  req.url = token_url_;
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  req.body = "grant_type=" + FormEncode(kGrantType) + "&assertion=" + FormEncode(*jwt);
  req.max_attempts = 3;
  Result<HttpResponse> res = http.Send(req);
  if (!res.ok())
    return Status(res.status().code(), "the token endpoint " + RedactUrl(token_url_) +
                                           " could not be reached: " + res.status().message());
  Json body = Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) body = Json::object();
  if (res->status != 200) {
    std::string what = StringField(body, "error");
    std::string description = StringField(body, "error_description");
    std::string text = "the token endpoint refused the service account " + key_.client_email + " (HTTP " +
                       std::to_string(res->status) + (what.empty() ? "" : ", " + what) +
                       (description.empty() ? "" : ": " + description) + ")";
    if (res->status >= 500) return Unavailable(text);
    return PermissionDenied(text + "; check the key file and that the key is still active");
  }
  std::string token = StringField(body, "access_token");
  RegisterSecret(token);
  auto expires_in = body.find("expires_in");
  if (token.empty() || expires_in == body.end() || !expires_in->is_number())
    return Unavailable("the token endpoint " + RedactUrl(token_url_) +
                       " answered 200 without access_token and a numeric expires_in");
  token_ = token;
  expires_ = now + std::chrono::seconds(expires_in->get<int64_t>());
  return token_;
}

}  // namespace dw::warehouse
