#include "app/command_start.h"

#include <iostream>

#include "config/workspace.h"

namespace dw::app {

StartedCommand StartCommand(const GlobalOptions& g, const std::string& command, StartOptions options) {
  StartedCommand out;
  Result<const Clock*> clock = options.clock_runs ? RunningCommandClock(g) : CommandClock(g);
  if (!clock.ok()) {
    std::cerr << "dw " << command << ": " << clock.status().message() << "\n";
    out.exit_code = 2;
    return out;
  }
  auto services = workspace::Services::Load(config::ResolveWorkspaceDir(g.workspace), **clock);
  if (options.require_workspace && !services->workspace_status().ok()) {
    std::cerr << "dw " << command << ": " << services->workspace_status().message() << "\n";
    out.exit_code = options.workspace_error_exit;
    return out;
  }
  out.services = std::move(services);
  return out;
}

}  // namespace dw::app
