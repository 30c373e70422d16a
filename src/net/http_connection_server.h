// The httplib server `dw serve` runs, with its own loop over each connection's requests: requests
// the fast path takes (http_fast_route.h) are served there, every other one by httplib's own
// request processing, request by request on the same keep-alive connection. The loop also keeps
// what httplib's does: the keep-alive idle timeout and request cap, and an end when the server
// stops (checked every 50 ms while a connection is idle).
#pragma once

#include <httplib.h>

#include <optional>

#include "net/http_fast_route.h"

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

  // Serves `sock` on the calling thread exactly as an accepted connection (the loop below) and
  // closes it. REQUIRES: bound (the loop ends when the listening socket is closed).
  bool ServeConnection(socket_t sock) { return process_and_close_socket(sock); }

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Waits for the next request; false when the connection should end (idle past the keep-alive
  // timeout, or the server is stopping).
  bool WaitForRequest(socket_t sock) const;

  std::optional<FastRoutes> fast_;
};

}  // namespace dw::net
