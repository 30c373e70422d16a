// The action stage's commands (`dw receipts`, `dw keys`, `dw approve`, `dw deny`, `dw stop`):
// registered on the CLI here so cli.cc stays a list of one line per stage.
#pragma once

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "app/commands.h"

namespace dw::app {

struct ActionCommands;

// Adds the commands to `app`; the returned object holds their parsed options.
std::shared_ptr<ActionCommands> AddActionCommands(CLI::App& app);

// Runs whichever of the commands was given and returns its exit code; nullopt when none was.
std::optional<int> RunActionCommands(const GlobalOptions& g, const ActionCommands& c);

// The key signed approval links are made and checked with: $DW_APPROVAL_LINK_KEY, registered as
// a secret (never printed); "" when unset.
std::string ApprovalLinkKeyFromEnv();

}  // namespace dw::app
