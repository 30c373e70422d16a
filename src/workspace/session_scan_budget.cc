#include "workspace/session_scan_budget.h"

#include <algorithm>

namespace dw::workspace {

int64_t SessionScanBudget::Spent(const std::string& session) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = spent_.find(session);
  return it == spent_.end() ? 0 : it->second;
}

void SessionScanBudget::Spend(const std::string& session, int64_t bytes) {
  if (bytes <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  spent_[session] += bytes;
}

std::optional<int64_t> SessionScanBudget::Remaining(const std::string& session, std::optional<int64_t> cap) const {
  if (!cap) return std::nullopt;
  return std::max<int64_t>(0, *cap - Spent(session));
}

std::string SessionScanBudget::Said(const std::string& session, int64_t cap) const {
  const int64_t spent = Spent(session);
  return "this MCP session has billed " + std::to_string(spent) + " bytes of its budget of " + std::to_string(cap) +
         " (mcp.max_scan_bytes), so it may bill at most " + std::to_string(std::max<int64_t>(0, cap - spent)) +
         " more: check only new rows with since, name fewer tables or checks, start a new session, or raise "
         "mcp.max_scan_bytes in the workspace";
}

}  // namespace dw::workspace
