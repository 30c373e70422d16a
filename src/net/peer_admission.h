// How many connections one peer address may hold open at once on the server. A client that opens
// hundreds of connections and trickles a header byte every few seconds (slowloris) would
// otherwise take every connection thread, and `/healthz`, the desk, `/mcp` and the lineage intake
// would stop answering everyone else. Thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace dw::net {

class PeerAdmission {
 public:
  // `per_peer` > 0: the most connections one address holds at once.
  explicit PeerAdmission(size_t per_peer) : per_peer_(per_peer) {}

  // Counts a connection from `peer` and returns true, or returns false (counting nothing) when
  // that address already holds per_peer connections. Every true is matched by one Leave.
  bool Enter(const std::string& peer);
  void Leave(const std::string& peer);
  // The connections `peer` holds now.
  size_t Held(const std::string& peer) const;

 private:
  const size_t per_peer_;
  mutable std::mutex mu_;
  std::map<std::string, size_t> held_;
};

}  // namespace dw::net
