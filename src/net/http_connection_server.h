// The httplib server `dw serve` runs, with its own loop over each connection's requests: requests
// the fast path takes (http_fast_route.h) are served there, every other one by httplib's own
// request processing, request by request on the same keep-alive connection. The loop also keeps
// what httplib's does: the keep-alive idle timeout and request cap, and an end when the server
// stops (checked every 50 ms while a connection is idle).
#pragma once

#include <httplib.h>

#include <chrono>
#include <memory>
#include <optional>

#include "net/connection_table.h"
#include "net/http_fast_route.h"
#include "net/peer_admission.h"

namespace dw::net {

class ConnectionServer final : public httplib::Server {
 public:
  // httplib 0.11 listens with a backlog of 5, so a burst of clients connecting at once (a
  // benchmark's 32 sessions, an agent fleet starting) overflows the accept queue and Linux drops
  // connections. listen() on a socket that is already listening only updates its backlog.
  // Returns false when the kernel refuses. REQUIRES: bound.
  bool RaiseBacklog(int backlog);

  // Asks the loop serving the current connection to close it once the response being built is
  // written: the handler refused the request's body part-way (over the size limit), so the bytes
  // that follow on the socket are the rest of that body, not a next request. REQUIRES: called
  // from a handler (which runs on its connection's thread).
  static void CloseAfterResponse();

  // Enables the fast path. REQUIRES: called before listening.
  void SetFastRoutes(FastRoutes routes) { fast_ = std::move(routes); }

  // Bounds what one slow or greedy client can hold (docs/RELIABILITY.md, "Slow clients"): at most
  // `per_peer` (> 0) connections open at once per peer address (one more is answered 503 with
  // Retry-After and closed at once, so it never holds a thread), and each request's head and body
  // must arrive within `request_read_limit` of its first byte (else 408 and the connection
  // closes; the fast path's own limit is FastRoutes::request_read_limit_ms). REQUIRES: called
  // before listening.
  // At most `in_all` connections are held at once: one more takes the place of the connection
  // that has waited longest for a request head (connection_table.h), or is answered 503 when
  // every one is being served.
  void SetAdmission(size_t per_peer, std::chrono::milliseconds request_read_limit, size_t in_all);

  // Serves `sock` on the calling thread exactly as an accepted connection (the loop below) and
  // closes it. REQUIRES: bound (the loop ends when the listening socket is closed).
  bool ServeConnection(socket_t sock) { return process_and_close_socket(sock); }

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Waits for the next request; false when the connection should end (idle past the keep-alive
  // timeout, or the server is stopping).
  bool WaitForRequest(socket_t sock) const;

  std::optional<FastRoutes> fast_;
  std::unique_ptr<PeerAdmission> peers_;
  std::unique_ptr<ConnectionTable> table_;
  std::chrono::milliseconds request_read_limit_{0};
};

}  // namespace dw::net
