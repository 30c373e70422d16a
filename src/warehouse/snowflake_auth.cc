#include "warehouse/snowflake_auth.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "base/json.h"
#include "base/redaction.h"
#include "warehouse/rs256_jwt.h"

namespace dw::warehouse {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string SnowflakeJwtAccount(const std::string& account) {
  std::string a = account;
  if (a.find(".global") != std::string::npos) {
    a = a.substr(0, a.find('-'));
  } else if (size_t dot = a.find('.'); dot != std::string::npos) {
    a.resize(dot);
  }
  return Upper(a);
}

Result<SnowflakeKey> ReadSnowflakeKey(const std::string& account, const std::string& user, const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the Snowflake private key file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  SnowflakeKey key;
  key.private_key_pem = ss.str();
  // Registered before anything else can fail: the key must never be quoted.
  RegisterSecret(key.private_key_pem);
  if (key.private_key_pem.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos)
    return InvalidArgument("the Snowflake private key file " + path +
                           " is encrypted; give an unencrypted PKCS#8 key (openssl pkcs8 -topk8 -nocrypt), kept "
                           "readable by the desk's user only");
  Result<std::string> fingerprint = RsaPublicKeyFingerprint(key.private_key_pem);
  if (!fingerprint.ok())
    return InvalidArgument("the Snowflake private key file " + path + ": " + fingerprint.status().message());
  key.account = SnowflakeJwtAccount(account);
  key.user = Upper(user);
  key.fingerprint = *fingerprint;
  return key;
}

Result<std::string> SignSnowflakeJwt(const SnowflakeKey& key, TimePoint now) {
  const int64_t iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const std::string subject = key.account + "." + key.user;
  const int64_t exp = iat + std::chrono::duration_cast<std::chrono::seconds>(SnowflakeJwtSource::kJwtLifetime).count();
  return SignRs256Jwt(key.private_key_pem,
                      {{"iss", subject + "." + key.fingerprint}, {"sub", subject}, {"iat", iat}, {"exp", exp}});
}

Result<std::string> SnowflakeJwtSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_.Now();
  if (!token_.empty() && now + kRefreshMargin < expires_) return token_;
  Result<std::string> jwt = SignSnowflakeJwt(key_, now);
  if (!jwt.ok()) return jwt.status();
  RegisterSecret(*jwt);  // worth a session for an hour
  token_ = *jwt;
  expires_ = now + kJwtLifetime;
  ++signed_;
  return token_;
}

void SnowflakeJwtSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  token_.clear();
}

int64_t SnowflakeJwtSource::signed_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return signed_;
}

}  // namespace dw::warehouse
