// Google's OAuth 2.0 service-account flow, as BigQuery's clients use it: a JWT (RS256, claims
// iss/scope/aud/iat/exp) signed with the key file's private key is exchanged at the token endpoint
// for an access token, which is cached and fetched again five minutes before it expires. The
// private key, the signed assertion and every access token are registered as secrets the moment
// they are read or received, so no message, log line or output can carry them.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "base/http.h"

namespace dw::warehouse {

// What a service-account JSON key file holds that the flow needs.
struct ServiceAccountKey {
  std::string client_email;
  std::string private_key_pem;  // PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----")
  std::string token_uri;        // e.g. https://oauth2.googleapis.com/token
};

// Reads the key file at `path`. kNotFound when it cannot be read, kInvalidArgument naming the
// missing or mistyped field (never quoting the file's content).
Result<ServiceAccountKey> ReadServiceAccountKey(const std::string& path);

// A JWT for `key` asking for `scope` at `audience`, issued at `now` and valid for one hour,
// signed RS256 with EVP_DigestSign. kInvalidArgument when the PEM is not an RSA private key.
Result<std::string> SignServiceAccountJwt(const ServiceAccountKey& key, const std::string& audience,
                                          const std::string& scope, TimePoint now);

// The access token of one key, cached and fetched through the caller's HTTP client (the source is
// shared by every warehouse using the key, each with its own client). Thread-safe.
class GoogleTokenSource {
 public:
  // `token_url` empty: the key's token_uri. `clock` must outlive the source.
  GoogleTokenSource(ServiceAccountKey key, std::string token_url, const Clock& clock);

  // A token valid for at least kRefreshMargin more (the cached one when it is, else one fetched
  // through `http`). A refused grant is kPermissionDenied with Google's error and description;
  // kUnavailable when the endpoint cannot be reached or answers 5xx.
  Result<std::string> Token(HttpClient& http);
  // Forgets the cached token: the API refused it (revoked, or expired early).
  void Invalidate();

  // How long before its expiry a token is replaced.
  static constexpr std::chrono::minutes kRefreshMargin{5};

 private:
  Result<std::string> Fetch(HttpClient& http);

  ServiceAccountKey key_;
  std::string token_url_;
  const Clock& clock_;
  std::mutex mu_;
  std::string token_;
  TimePoint expires_{};
};

}  // namespace dw::warehouse
