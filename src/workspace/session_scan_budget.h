// The bytes each MCP session's tool calls have billed on warehouses that bill by bytes read
// (BigQuery), held against the workspace's `mcp.max_scan_bytes` (docs/workspace.md, `mcp`). Kept
// in memory: an MCP session lives in one process (a stdio agent, or one `dw serve`), and so does
// what it spent.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace dw::workspace {

class SessionScanBudget {
 public:
  // What `session` has billed so far (0 for a session not seen).
  int64_t Spent(const std::string& session) const;
  // Adds `bytes` (ignored when not positive) to what `session` has billed.
  void Spend(const std::string& session, int64_t bytes);
  // What a call of `session` may still bill under `cap`: the cap less what it has spent, at least
  // 0; nullopt without a cap. Calls in flight at once each see what was spent before they began.
  std::optional<int64_t> Remaining(const std::string& session, std::optional<int64_t> cap) const;
  // The sentence a refusal under `cap` carries: what `session` has billed of it, and what to do.
  std::string Said(const std::string& session, int64_t cap) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> spent_;
};

}  // namespace dw::workspace
