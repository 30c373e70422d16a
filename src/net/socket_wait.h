// Waiting on one socket, for the HTTP server's own connection loop and its fast path.
#pragma once

namespace dw::net {

// Waits up to `timeout_ms` (0: do not wait) until `events` (POLLIN, POLLOUT) are ready on `sock`,
// retrying when a signal interrupts. False on timeout or error.
bool WaitForSocket(int sock, short events, int timeout_ms);

}  // namespace dw::net
