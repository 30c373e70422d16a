#include "desk/reader_sessions.h"

#include "desk/random_token.h"

#include <openssl/evp.h>

namespace dw::desk {
namespace {

std::array<unsigned char, 32> Sha256(const std::string& s) {
  std::array<unsigned char, 32> out{};
  unsigned int len = 0;
  EVP_Digest(s.data(), s.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

}  // namespace

ReaderSessions::ReaderSessions(const Clock& clock, std::chrono::milliseconds ttl, size_t cap)
    : clock_(clock), ttl_(ttl), cap_(cap) {}

std::string ReaderSessions::Start(const std::string& reader) {
  const std::string id = RandomHexToken();
  if (id.empty()) return "";
  const TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = live_.begin(); it != live_.end();) it = it->second.first <= now ? live_.erase(it) : std::next(it);
  while (live_.size() >= cap_ && !live_.empty()) {
    auto oldest = live_.begin();
    for (auto it = live_.begin(); it != live_.end(); ++it)
      if (it->second.first < oldest->second.first) oldest = it;
    live_.erase(oldest);
  }
  live_[Sha256(id)] = {now + ttl_, reader};
  return id;
}

bool ReaderSessions::Valid(const std::string& id) {
  if (id.size() != 48) return false;
  // The map is searched by the digest of what was presented, so timing says nothing of the ids.
  const auto digest = Sha256(id);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(digest);
  return it != live_.end() && clock_.Now() < it->second.first;
}

}  // namespace dw::desk
