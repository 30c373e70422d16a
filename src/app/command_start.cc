#include "app/command_start.h"

#include <iostream>

#include "config/workspace.h"
#include "store/clock_kind.h"

namespace dw::app {
namespace {

// Ok when the store of `services` is a simulated-clock store; kPermissionDenied naming --now when
// it is a real one (a decision dated by --now there would backdate or postdate what people did).
Status RecordingAtNowAllowed(workspace::Services& services, const std::string& command) {
  Result<store::StateStore*> st = services.state();
  if (!st.ok()) return Status(st.status().code(), "state store: " + st.status().message());
  Result<bool> simulated = store::IsSimulatedClockStore(**st);
  if (!simulated.ok()) return Status(simulated.status().code(), "state store: " + simulated.status().message());
  if (*simulated) return Status::Ok();
  return PermissionDenied("--now is refused: `dw " + command +
                          "` records decisions, resolutions or receipts, and those carry the real time; --now is "
                          "for reading and `dw replay` (this workspace's state store is not a simulated-clock store; "
                          "docs/cli.md, \"--now\")");
}

}  // namespace

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
  if (options.records && !g.now.empty() && services->workspace_status().ok()) {
    Status refused = RecordingAtNowAllowed(*services, command);
    if (!refused.ok()) {
      std::cerr << "dw " << command << ": " << refused.message() << "\n";
      out.exit_code = refused.code() == StatusCode::kPermissionDenied ? 2 : options.workspace_error_exit;
      return out;
    }
  }
  out.services = std::move(services);
  return out;
}

}  // namespace dw::app
