#include "net/connection_table.h"

#include <sys/socket.h>

namespace dw::net {

bool ConnectionTable::Admit(int sock, Steady::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_since_.size() >= cap_) {
    auto victim = waiting_since_.end();
    for (auto it = waiting_since_.begin(); it != waiting_since_.end(); ++it)
      if (it->second && (victim == waiting_since_.end() || *it->second < *victim->second))
        victim = it;
    if (victim == waiting_since_.end()) return false;
    // Shut down, not closed: the socket stays its thread's until that thread leaves and closes it,
    // so its number cannot be handed to another connection in between.
    ::shutdown(victim->first, SHUT_RDWR);
    waiting_since_.erase(victim);
    ++evicted_;
  }
  waiting_since_[sock] = now;
  return true;
}

void ConnectionTable::Waiting(int sock, Steady::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_since_.find(sock);
  if (it != waiting_since_.end() && !it->second) it->second = now;
}

void ConnectionTable::Served(int sock) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_since_.find(sock);
  if (it != waiting_since_.end()) it->second.reset();
}

void ConnectionTable::Leave(int sock) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_since_.erase(sock);
}

size_t ConnectionTable::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_since_.size();
}

size_t ConnectionTable::evicted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evicted_;
}

}  // namespace dw::net
