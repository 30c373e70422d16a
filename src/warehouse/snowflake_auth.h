// Snowflake's key-pair authentication, as its SQL API takes it: a JWT signed RS256 with the user's
// private key, issuer ACCOUNT.USER.SHA256:<fingerprint of the registered public key>, subject
// ACCOUNT.USER, valid for at most one hour. The token is signed once and reused until five minutes
// before it expires (one signature per hour per key, however many statements run). The private
// key and every signed token are registered as secrets the moment they exist.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "base/status.h"

namespace dw::warehouse {

// The account as a key-pair JWT names it: upper case, without the region and cloud a locator
// carries ("xy12345.us-east-2.aws" -> "XY12345"; "myorg-myaccount" -> "MYORG-MYACCOUNT"), and for a
// ".global" account the part before its first '-'.
std::string SnowflakeJwtAccount(const std::string& account);

// What signing needs: read once from the workspace's `private_key` file.
struct SnowflakeKey {
  std::string account;      // as SnowflakeJwtAccount gives it
  std::string user;         // upper case
  std::string private_key_pem;
  std::string fingerprint;  // "SHA256:..." of the public half (not secret: DESCRIBE USER shows it)
};

// Reads the PKCS#8 PEM at `path` for `account` and `user`. kNotFound when the file cannot be read;
// kInvalidArgument when it is not an unencrypted RSA private key (an encrypted one is named as
// such, with what to do). Never quotes the file.
Result<SnowflakeKey> ReadSnowflakeKey(const std::string& account, const std::string& user, const std::string& path);

// A JWT for `key` issued at `now`, expiring kJwtLifetime later.
Result<std::string> SignSnowflakeJwt(const SnowflakeKey& key, TimePoint now);

// One key's current JWT. Thread-safe.
class SnowflakeJwtSource {
 public:
  // `clock` must outlive the source.
  SnowflakeJwtSource(SnowflakeKey key, const Clock& clock) : key_(std::move(key)), clock_(clock) {}

  // A token valid for at least kRefreshMargin more (the cached one when it is).
  Result<std::string> Token();
  // Forgets the cached token: Snowflake refused it (clock skew, a key rotated meanwhile).
  void Invalidate();
  // How many tokens were signed (each is one "acquisition" in the sense of issue 36's target).
  int64_t signed_count() const;
  const SnowflakeKey& key() const { return key_; }

  static constexpr std::chrono::minutes kJwtLifetime{60};
  static constexpr std::chrono::minutes kRefreshMargin{5};

 private:
  SnowflakeKey key_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::string token_;
  TimePoint expires_{};
  int64_t signed_ = 0;
};

}  // namespace dw::warehouse
