// What every workspace command starts with, written once: the clock from the global --now
// handling (CommandClock), then the workspace loaded with that clock, each failure reported on
// stderr as "dw COMMAND: why".
#pragma once

#include <memory>
#include <string>

#include "app/commands.h"
#include "workspace/services.h"

namespace dw::app {

struct StartOptions {
  // false: a workspace that fails to load is still returned (validate, describe, the MCP servers
  // explain the problem themselves).
  bool require_workspace = true;
  int workspace_error_exit = 2;  // the command's exit code when the required workspace fails
  bool clock_runs = false;       // RunningCommandClock instead of CommandClock
  // The command records a decision, a resolution or a receipt (approve, deny, stop, incidents
  // ack/resolve/verify/close/scan/propose, monitor mark, schema register, watch, serve, mcp): those carry
  // the real time, so --now is refused unless the workspace's store is a simulated-clock store
  // (store/state_store.h; docs/cli.md, "--now").
  bool records = false;
};

struct StartedCommand {
  std::shared_ptr<workspace::Services> services;  // null when the command must end
  int exit_code = 0;                              // when it must: 2 for a bad --now, else
                                                  // options.workspace_error_exit
  explicit operator bool() const { return services != nullptr; }
};

// Builds the command's clock and loads the workspace of g.workspace with it. A bad --now, a --now
// on a recording command (options.records) whose store is not a simulated-clock store, or, when
// required, a workspace that fails to load is reported and ends the command with
// StartedCommand::exit_code (2 for --now).
StartedCommand StartCommand(const GlobalOptions& g, const std::string& command, StartOptions options = {});

}  // namespace dw::app
