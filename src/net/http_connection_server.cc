#include "net/http_connection_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <algorithm>

#include "net/socket_wait.h"

namespace dw::net {
namespace {

int Millis(time_t sec, time_t usec) { return static_cast<int>(sec * 1000 + usec / 1000); }

void Address(socket_t sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  int r = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
               : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  if (r != 0) return;
  char text[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

// httplib's Stream over one connection for the requests httplib serves, as its own SocketStream
// does (poll with the read or write timeout, then recv or send), except that it lives as long as
// the connection: bytes read ahead (a pipelined next request) stay buffered for the next request.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(socket_t sock, int read_timeout_ms, int write_timeout_ms)
      : sock_(sock), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool buffered() const { return off_ < len_; }
  // The request that starts now must have been read whole by `limit` from now (> 0; 0: no limit).
  void StartRequest(std::chrono::milliseconds limit) {
    deadline_ = limit.count() > 0 ? std::optional(std::chrono::steady_clock::now() + limit) : std::nullopt;
    timed_out_ = false;
    head_seen_ = false;
    head_tail_.clear();
  }
  // Called once per request, when the blank line that ends its head has been read.
  void OnHead(std::function<void()> f) { on_head_ = std::move(f); }
  // Whether a read failed because the request's time was up.
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override { return buffered() || WaitForSocket(sock_, POLLIN, read_timeout_ms_); }
  bool is_writable() const override {
    if (!WaitForSocket(sock_, POLLOUT, write_timeout_ms_)) return false;
    // Alive unless the peer has closed: readable with nothing to read.
    if (!WaitForSocket(sock_, POLLIN, 0)) return true;
    char byte;
    return ::recv(sock_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!buffered()) {
      int wait_ms = read_timeout_ms_;
      if (deadline_) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
          timed_out_ = true;
          return -1;
        }
        wait_ms = std::min(wait_ms, static_cast<int>(left.count()) + 1);
      }
      if (!WaitForSocket(sock_, POLLIN, wait_ms)) {
        timed_out_ = deadline_ && std::chrono::steady_clock::now() >= *deadline_;
        return -1;
      }
      ssize_t n;
      if (size >= sizeof buf_) {
        do n = ::recv(sock_, ptr, size, 0); while (n < 0 && errno == EINTR);
        if (n > 0) NoteRead(ptr, static_cast<size_t>(n));
        return n;
      }
      do n = ::recv(sock_, buf_, sizeof buf_, 0); while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      len_ = static_cast<size_t>(n);
    }
    size_t take = std::min(size, len_ - off_);
    std::memcpy(ptr, buf_ + off_, take);
    off_ += take;
    NoteRead(ptr, take);
    return static_cast<ssize_t>(take);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!WaitForSocket(sock_, POLLOUT, write_timeout_ms_)) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { Address(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { Address(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  socket_t sock_;
  int read_timeout_ms_;
  int write_timeout_ms_;
  char buf_[4096];
  size_t off_ = 0;
  size_t len_ = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  bool timed_out_ = false;

  // Watches what httplib reads for the end of the request head ("\r\n\r\n", possibly split
  // across reads).
  void NoteRead(const char* p, size_t n) {
    if (head_seen_ || !on_head_) return;
    head_tail_.append(p, n);
    if (head_tail_.find("\r\n\r\n") != std::string::npos) {
      head_seen_ = true;
      head_tail_.clear();
      on_head_();
      return;
    }
    if (head_tail_.size() > 3) head_tail_.erase(0, head_tail_.size() - 3);
  }
  std::function<void()> on_head_;
  bool head_seen_ = false;
  std::string head_tail_;
};

// Writes a whole short answer that ends the connection (503, 408), without waiting for a slow
// reader: best effort, the connection closes after it either way.
void SendFinalAnswer(socket_t sock, const std::string& status, const std::string& extra_headers) {
  const std::string text = "HTTP/1.1 " + status + "\r\n" + extra_headers +
                           "Content-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
  (void)::send(sock, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Answers a connection that is not admitted 503 with Retry-After at once and closes it; false.
bool RefuseAndClose(socket_t sock) {
  SendFinalAnswer(sock, "503 Service Unavailable", "Retry-After: 1\r\n");
  // What the client already sent is dropped before the close, which would otherwise be a reset
  // that can destroy the answer before the client reads it.
  char drop[4096];
  while (::recv(sock, drop, sizeof drop, MSG_DONTWAIT) > 0) {
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return false;
}

// Bytes the kernel still holds for the peer of `sock` (not yet sent, or sent and not acknowledged);
// -1 when the kernel does not say.
int QueuedForPeer(socket_t sock) {
  int n = 0;
  return ::ioctl(sock, SIOCOUTQ, &n) == 0 ? n : -1;
}

thread_local bool t_close_after_response = false;

// Ends a connection whose request body was refused part-way without resetting it under the
// client: our side is shut for writing (the response is out), then what the client still sends is
// read and dropped for a moment, so a client that reads its response while uploading sees the 413
// instead of a reset. Bounded in time and bytes; memory stays one buffer.
void LingeringClose(socket_t sock) {
  ::shutdown(sock, SHUT_WR);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  char drain[16 * 1024];
  size_t left = 64 * 1024 * 1024;
  while (left > 0 && std::chrono::steady_clock::now() < until) {
    ssize_t n = ::recv(sock, drain, sizeof drain, 0);
    if (n == 0) break;
    if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) break;
    if (n > 0) left -= std::min(left, static_cast<size_t>(n));
  }
}

}  // namespace

void ConnectionServer::CloseAfterResponse() { t_close_after_response = true; }

bool ConnectionServer::RaiseBacklog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }

bool ConnectionServer::WaitForRequest(socket_t sock) const {
  auto idle_since = std::chrono::steady_clock::now();
  const auto idle_limit = std::chrono::seconds(keep_alive_timeout_sec_);
  // A peer still taking in the last response is not idle: the kernel may hold megabytes of it
  // when the response is written, and a slow reader takes longer than the idle limit to receive
  // them, then sends its next request to a connection closed under it (found by the soak). So
  // the idle clock restarts whenever the bytes queued for the peer went down; a peer that stops
  // reading stops that, and is dropped after the idle limit as before.
  int queued = QueuedForPeer(sock);
  // A blocking one-byte peek (the socket's receive timeout is the 50 ms poll interval) rather than
  // poll(): one cheaper call per request on a busy connection.
  for (;;) {
    if (svr_sock_ == INVALID_SOCKET) return false;
    char byte;
    ssize_t n = ::recv(sock, &byte, 1, MSG_PEEK);
    if (n >= 0) return true;  // a request, or the peer's close for the caller to see
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return true;  // the caller meets the error
    const auto now = std::chrono::steady_clock::now();
    if (queued > 0) {
      const int left = QueuedForPeer(sock);
      if (left >= 0 && left < queued) idle_since = now;
      queued = left;
    }
    if (now - idle_since > idle_limit) return false;
  }
}

void ConnectionServer::SetAdmission(size_t per_peer, std::chrono::milliseconds request_read_limit, size_t in_all) {
  peers_ = std::make_unique<PeerAdmission>(std::max<size_t>(per_peer, 1));
  request_read_limit_ = request_read_limit;
  table_ = std::make_unique<ConnectionTable>(std::max<size_t>(in_all, 1));
}

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  // A peer over its share of connections is answered at once and never holds this thread.
  std::string peer;
  if (peers_) {
    int port = 0;
    Address(sock, true, peer, port);
    if (!peers_->Enter(peer)) return RefuseAndClose(sock);
  }
  struct Leave {
    PeerAdmission* peers;
    const std::string& peer;
    ~Leave() {
      if (peers) peers->Leave(peer);
    }
  } leave{peers_.get(), peer};
  // At the cap in all, a newcomer takes the place of the connection that has waited longest for a
  // request head; when none may be evicted it is refused like a peer over its share.
  if (table_ && !table_->Admit(sock)) return RefuseAndClose(sock);
  ConnectionStream stream(sock, Millis(read_timeout_sec_, read_timeout_usec_),
                          Millis(write_timeout_sec_, write_timeout_usec_));
  // Blocking reads wake every 50 ms so an idle connection notices the server stopping. (Every
  // other read polls first or does not wait.)
  if (table_) stream.OnHead([this, sock] { table_->Served(sock); });
  timeval wake{0, 50 * 1000};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wake, sizeof wake);
  bool ret = false;
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (table_) table_->Waiting(sock);
    if (!stream.buffered() && !WaitForRequest(sock)) break;
    stream.StartRequest(request_read_limit_);
    if (fast_ && !stream.buffered()) {
      FastOutcome f = ServeFastRequest(sock, *fast_, left == 1);
      if (f == FastOutcome::kServed) {
        ret = true;
        continue;
      }
      if (f != FastOutcome::kNotServed) {
        ret = f == FastOutcome::kServedAndClosed;
        break;
      }
    }
    bool closed = false;
    t_close_after_response = false;
    ret = process_request(stream, left == 1, closed, nullptr);
    if (stream.timed_out()) {  // whatever httplib answered, a request that ran out of time ends the connection
      if (!ret) SendFinalAnswer(sock, "408 Request Timeout", "");
      break;
    }
    if (t_close_after_response) {
      t_close_after_response = false;
      LingeringClose(sock);
      break;
    }
    if (!ret || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  if (table_) table_->Leave(sock);  // before the close, while the number is still this socket's
  ::close(sock);
  return ret;
}

}  // namespace dw::net
