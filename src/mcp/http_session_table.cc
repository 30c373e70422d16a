#include "mcp/http_session_table.h"

#include <openssl/rand.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "base/hex.h"

namespace dw::mcp {
namespace {

int64_t NowMs(const Clock& clock) { return ToUnixMillis(clock.Now()); }

}  // namespace

Result<std::string> NewSessionId() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return Internal("the system random generator failed");
  return LowerHex(bytes, sizeof bytes);
}

HttpSessionTable::Lease::Lease(std::shared_ptr<Entry> entry, const Clock* clock)
    : entry_(std::move(entry)), clock_(clock) {
  entry_->busy.fetch_add(1);
  entry_->uses.fetch_add(1);
}

HttpSessionTable::Lease::~Lease() { Release(); }

HttpSessionTable::Lease& HttpSessionTable::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    entry_ = std::move(other.entry_);
    clock_ = other.clock_;
  }
  return *this;
}

void HttpSessionTable::Lease::Release() {
  if (!entry_) return;
  // The idle clock starts when the last request finishes, not when it started.
  entry_->last_used_ms.store(NowMs(*clock_));
  entry_->busy.fetch_sub(1);
  entry_.reset();
}

HttpSessionTable::HttpSessionTable(size_t max_sessions, std::chrono::milliseconds idle_ttl,
                                   const Clock& clock, size_t max_per_peer)
    : max_sessions_(max_sessions),
      max_per_peer_(max_per_peer > 0 ? max_per_peer : max_sessions),
      idle_ttl_(idle_ttl),
      clock_(clock) {}

HttpSessionTable::~HttpSessionTable() { CloseAll(); }

void HttpSessionTable::ExpireLocked(int64_t now_ms, std::vector<std::shared_ptr<Session>>* closed) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& e = *it->second;
    if (e.busy.load() == 0 && now_ms - e.last_used_ms.load() > idle_ttl_.count()) {
      closed->push_back(e.session);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

std::unordered_map<std::string, std::shared_ptr<HttpSessionTable::Entry>>::iterator HttpSessionTable::VictimLocked(
    const std::string* peer) {
  auto victim = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    const Entry& e = *it->second;
    if (e.busy.load() != 0 || (peer != nullptr && e.peer != *peer)) continue;
    if (victim == entries_.end()) {
      victim = it;
      continue;
    }
    const Entry& v = *victim->second;
    const int64_t uses = e.uses.load(), victim_uses = v.uses.load();
    if (uses < victim_uses || (uses == victim_uses && e.last_used_ms.load() < v.last_used_ms.load())) victim = it;
  }
  return victim;
}

Result<std::string> HttpSessionTable::Add(std::shared_ptr<Session> session, int endpoint, const std::string& peer) {
  Result<std::string> id = NewSessionId();
  if (!id.ok()) return id.status();
  auto entry = std::make_shared<Entry>();
  entry->session = std::move(session);
  entry->endpoint = endpoint;
  entry->peer = peer;
  int64_t now = NowMs(clock_);
  entry->last_used_ms.store(now);

  std::vector<std::shared_ptr<Session>> closed;
  Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t of_peer = 0;
    for (const auto& [key, e] : entries_) of_peer += e->peer == peer;
    if (entries_.size() >= max_sessions_ || of_peer >= max_per_peer_) {
      ExpireLocked(now, &closed);
      of_peer = 0;
      for (const auto& [key, e] : entries_) of_peer += e->peer == peer;
    }
    // A peer at its share makes room among its own sessions, so that one client's flood never
    // evicts another's; a full table (many peers) among every idle session. Either way the
    // session used least since its initialize goes first: a client that came back to it gets 404
    // and, as the spec requires, starts a new session.
    if (of_peer >= max_per_peer_ || entries_.size() >= max_sessions_) {
      const bool own = of_peer >= max_per_peer_;
      auto victim = VictimLocked(own ? &peer : nullptr);
      if (victim == entries_.end()) {
        status = own ? ResourceExhausted("too many MCP sessions in use from " + (peer.empty() ? std::string("this client") : peer) +
                                         " (" + std::to_string(max_per_peer_) + "); retry later")
                     : ResourceExhausted("too many MCP sessions in use (" + std::to_string(max_sessions_) + "); retry later");
      } else {
        closed.push_back(victim->second->session);
        entries_.erase(victim);
      }
    }
    if (status.ok()) entries_.emplace(*id, std::move(entry));
  }
  for (auto& s : closed) s->Close();
  if (!status.ok()) return status;
  return id;
}

HttpSessionTable::Lease HttpSessionTable::Acquire(std::string_view id, int endpoint) {
  std::shared_ptr<Session> expired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(std::string(id));
    if (it == entries_.end() || it->second->endpoint != endpoint) return Lease();
    Entry& e = *it->second;
    if (e.busy.load() == 0 && NowMs(clock_) - e.last_used_ms.load() > idle_ttl_.count()) {
      expired = e.session;
      entries_.erase(it);
    } else {
      // The lease is taken under the lock so that no eviction can pick this entry in between.
      return Lease(it->second, &clock_);
    }
  }
  expired->Close();
  return Lease();
}

bool HttpSessionTable::Remove(std::string_view id, int endpoint) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(std::string(id));
    if (it == entries_.end() || it->second->endpoint != endpoint) return false;
    session = it->second->session;
    entries_.erase(it);
  }
  session->Close();
  return true;
}

void HttpSessionTable::CloseAll() {
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries.swap(entries_);
  }
  for (auto& [id, entry] : entries) entry->session->Close();
}

size_t HttpSessionTable::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace dw::mcp
