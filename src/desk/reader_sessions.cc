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

std::chrono::milliseconds ReaderSessions::SignInWait(const std::string& peer) {
  const TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = failed_.find(peer);
  if (it == failed_.end()) return std::chrono::milliseconds(0);
  std::erase_if(it->second, [&](TimePoint t) { return t + kFailedSignInWindow <= now; });
  if (static_cast<int>(it->second.size()) < kMaxFailedSignIns) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(it->second.front() + kFailedSignInWindow - now);
}

int ReaderSessions::RecordFailedSignIn(const std::string& peer) {
  const TimePoint now = clock_.Now();
  std::lock_guard<std::mutex> lock(mu_);
  // Bounded like the sessions: peers whose failures all left the window go first, then any.
  if (failed_.size() >= cap_ && !failed_.count(peer)) {
    std::erase_if(failed_, [&](const auto& entry) { return entry.second.empty() || entry.second.back() + kFailedSignInWindow <= now; });
    if (failed_.size() >= cap_) failed_.erase(failed_.begin());
  }
  auto& times = failed_[peer];
  std::erase_if(times, [&](TimePoint t) { return t + kFailedSignInWindow <= now; });
  times.push_back(now);
  return static_cast<int>(times.size());
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
