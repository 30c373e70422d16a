// MCP over stdio: newline-delimited JSON-RPC on two file descriptors (stdin/stdout in production,
// a socketpair or pipes in tests).
#pragma once

#include <memory>

#include "mcp/catalog.h"
#include "mcp/session.h"

namespace dw::mcp {

// Serves one session until end of input. Reads with read(2) from `in_fd`; writes one message per
// line to `out_fd` (nothing else is ever written there). Pings, initialize and other bookkeeping
// are answered on the reader thread; requests that run catalog code (tools/call, resources/read,
// prompts/get, completion/complete) run on up to 16 worker threads, so cancellations and client
// answers keep flowing while a tool runs. A line longer than limits.max_message_bytes is skipped
// without being buffered and answered with -32600.
// At end of input (or a read error, or when `out_fd` breaks) in-flight calls get a short grace
// period, are then cancelled, and the function returns 0 once they have ended. Neither descriptor
// is closed. Ignores SIGPIPE process-wide so that a vanished client cannot kill the server.
int ServeStdio(std::shared_ptr<const Catalog> catalog, const ServerInfo& info, const Limits& limits,
               int in_fd, int out_fd);

}  // namespace dw::mcp
