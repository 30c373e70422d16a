// Connection reuse for a thread that sends many small requests to one host (the notification
// outbox): while a ConnectionReuse lives, this thread's requests through the curl HttpClient keep
// their connection open after the answer and reuse it for the next request to the same host
// (HTTP keep-alive), instead of a new TCP (and TLS) handshake per request. Off otherwise, so a
// server's worker is never held by an idle connection of a client that sends one request now and
// then. Nesting is allowed; the thread's kept connections are closed when the thread ends.
#pragma once

namespace dw::net {

class ConnectionReuse {
 public:
  ConnectionReuse();
  ~ConnectionReuse();
  ConnectionReuse(const ConnectionReuse&) = delete;
  ConnectionReuse& operator=(const ConnectionReuse&) = delete;

  // True iff a ConnectionReuse lives on this thread.
  static bool Active();
};

}  // namespace dw::net
