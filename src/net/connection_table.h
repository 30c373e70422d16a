// The connections the server holds in all, and which of them only wait for a request head. A
// client trickling header bytes from many addresses (a distributed slowloris) stays under every
// per-address share (peer_admission.h) and could still hold every connection thread; so the table
// has a cap below the thread pool's, and a connection arriving at the cap takes the place of the
// one that has waited longest for a head. No age is required of it: an attacker reconnecting
// faster than any threshold would keep every waiter young and lock everyone else out. A client
// whose head arrives is served at once and is never the one evicted (a tool call, an SSE
// stream), so only connections still waiting, or idle between requests, can lose their place.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>

namespace dw::net {

class ConnectionTable {
 public:
  using Steady = std::chrono::steady_clock;

  // `cap` > 0: the most connections held at once.
  explicit ConnectionTable(size_t cap) : cap_(cap) {}

  // Admits socket `sock` (as waiting for its first head) and returns true; at the cap, first shuts
  // down the connection that has waited longest for a head (its own thread then sees the socket
  // end and leaves). Returns false, admitting nothing, when every held connection is being
  // served. Every true is matched by one Leave.
  bool Admit(int sock, Steady::time_point now = Steady::now());
  // `sock` waits for a request head from `now` (a keep-alive connection between requests too).
  void Waiting(int sock, Steady::time_point now = Steady::now());
  // `sock`'s request head has arrived: it is being served.
  void Served(int sock);
  // Forgets `sock`. REQUIRES: called before the socket is closed, so its number is not reused by
  // a connection this table already holds.
  void Leave(int sock);
  // The connections held now, and how many were evicted since the start.
  size_t held() const;
  size_t evicted() const;

 private:
  const size_t cap_;
  mutable std::mutex mu_;
  std::map<int, std::optional<Steady::time_point>> waiting_since_;  // nullopt: being served
  size_t evicted_ = 0;
};

}  // namespace dw::net
