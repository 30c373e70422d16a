// A minimal MCP client over stdio: spawns a server process and exchanges newline-delimited
// JSON-RPC with it. Used by `dw agents --check` and the stdio benchmark (the conformance of the
// server itself is proven with the official SDK client, not with this).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::mcp {

class StdioClient {
 public:
  StdioClient() = default;
  ~StdioClient();
  StdioClient(const StdioClient&) = delete;
  StdioClient& operator=(const StdioClient&) = delete;

  // Spawns `argv` (argv[0] is the program path) with pipes on stdin/stdout; stderr is inherited
  // unless `quiet`, then it goes to /dev/null.
  Status Start(const std::vector<std::string>& argv, bool quiet = true);

  // Sends a request and waits for the response with the same id (notifications received before it
  // are collected in `notifications` when non-null). Returns the whole response message.
  Result<Json> Call(const std::string& method, const Json& params, std::chrono::milliseconds timeout,
                    std::vector<Json>* notifications = nullptr);

  // Sends a notification (no answer expected).
  Status Notify(const std::string& method, const Json& params);

  // initialize + notifications/initialized; returns the initialize result.
  Result<Json> Initialize(const std::string& client_name, std::chrono::milliseconds timeout);

  // Closes the server's stdin and waits for it to exit; returns its exit status.
  int Stop();

  // The server's process id, or -1 when not started.
  int pid() const { return pid_; }

 private:
  Status WriteLine(const std::string& line);
  Result<std::string> ReadLine(std::chrono::steady_clock::time_point deadline);

  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  long next_id_ = 1;
};

}  // namespace dw::mcp
