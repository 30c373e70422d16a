#include "net/peer_admission.h"

namespace dw::net {

bool PeerAdmission::Enter(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t& n = held_[peer];
  if (n >= per_peer_) {
    if (n == 0) held_.erase(peer);
    return false;
  }
  ++n;
  return true;
}

void PeerAdmission::Leave(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(peer);
  if (it == held_.end()) return;
  // Addresses that hold nothing are dropped, so the map stays as small as the connections open.
  if (--it->second == 0) held_.erase(it);
}

size_t PeerAdmission::Held(const std::string& peer) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(peer);
  return it == held_.end() ? 0 : it->second;
}

}  // namespace dw::net
