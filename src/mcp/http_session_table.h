// The live MCP sessions of a Streamable HTTP server, by Mcp-Session-Id. Bounded: idle sessions
// expire after a TTL; one peer (a client address) holds at most a share of the table; and when a
// peer or the table is full, an idle session makes room: the one used least since its initialize
// (a flood of initialize requests makes sessions that are never used again), the least recently
// used among those. A flood cannot exhaust memory, and cannot evict the sessions other clients
// work in while it has its own unused ones to lose.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "mcp/session.h"

namespace dw::mcp {

// Returns a new session id: 32 lower-case hex characters from OpenSSL's CSPRNG (128 bits).
Result<std::string> NewSessionId();

class HttpSessionTable {
 private:
  struct Entry {
    std::shared_ptr<Session> session;
    int endpoint = 0;
    std::string peer;  // the client's address when it initialized
    std::atomic<int64_t> last_used_ms{0};
    std::atomic<int64_t> uses{0};  // requests after its initialize
    std::atomic<int> busy{0};  // requests in flight; a busy session is never evicted
  };

 public:
  // Keeps a session in use (and its entry fresh) for as long as it lives.
  class Lease {
   public:
    Lease() = default;
    Lease(std::shared_ptr<Entry> entry, const Clock* clock);
    ~Lease();
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    explicit operator bool() const { return entry_ != nullptr; }
    Session& session() const { return *entry_->session; }

   private:
    void Release();
    std::shared_ptr<Entry> entry_;
    const Clock* clock_ = nullptr;
  };

  // `max_per_peer` 0: a peer may hold the whole table.
  HttpSessionTable(size_t max_sessions, std::chrono::milliseconds idle_ttl, const Clock& clock,
                   size_t max_per_peer = 0);
  // Closes every session still registered.
  ~HttpSessionTable();

  // Registers `session` for `endpoint`, initialized by `peer`, under a fresh id and returns the id.
  // A peer at its share makes room among its own idle sessions; a full table among every idle
  // one. Fails with kResourceExhausted (naming the peer when it is its share) when no session
  // there is idle.
  Result<std::string> Add(std::shared_ptr<Session> session, int endpoint, const std::string& peer = "");

  // The session `id` of `endpoint`, held busy until the lease is dropped; an empty lease when the
  // id is unknown, expired, ended, or belongs to another endpoint.
  Lease Acquire(std::string_view id, int endpoint);

  // Ends session `id` of `endpoint`: removes it and closes it (in-flight calls are cancelled).
  // Returns false when there is no such session.
  bool Remove(std::string_view id, int endpoint);

  // Closes and removes every session (server shutdown).
  void CloseAll();

  size_t size() const;

 private:
  // Drops expired idle sessions; REQUIRES mu_ held. Closes them after the lock is released via
  // `closed`, because Session::Close may wait for in-flight work.
  void ExpireLocked(int64_t now_ms, std::vector<std::shared_ptr<Session>>* closed);
  // The idle session to evict (fewest uses, then least recently used), among `peer`'s when it is
  // not null; entries_.end() when none is idle. REQUIRES mu_ held.
  std::unordered_map<std::string, std::shared_ptr<Entry>>::iterator VictimLocked(const std::string* peer);

  const size_t max_sessions_;
  const size_t max_per_peer_;
  const std::chrono::milliseconds idle_ttl_;
  const Clock& clock_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
};

}  // namespace dw::mcp
