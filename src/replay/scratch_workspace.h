// The copy of a scenario's workspace the replay runs against, so the user's files are never
// edited: the folder is copied, and in the copy's dataworkers.yaml the platforms the scenario
// names point at their simulators, the platforms it does not name are left out (a replay never
// reaches a real system), the notify channels it gives a receiver point at that receiver (the
// others are left out too), and the state store lives in the scratch folder.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace dw::replay {

struct ScratchWorkspace {
  std::filesystem::path dir;                  // the copy
  std::vector<std::string> platforms_left_out;  // workspace platforms the scenario does not name
  std::vector<std::string> channels_left_out;   // notify channels the scenario gives no receiver
};

// Copies `workspace` to `scratch`/workspace (which must not exist) and rewrites its
// dataworkers.yaml: platforms.<name>.url = urls[name] for every named platform, the other
// platforms removed, state = `scratch`/state.db. Under notify:, each channel in `receivers`
// (channel -> receiver URL) is pointed at its receiver (slack: webhook or api_url; teams: webhook;
// opsgenie, pagerduty: url; email: smtp), every other channel is removed along with its place in
// the routes (a route left without channels goes; notify: goes when no channel is left). A sqlite
// warehouse whose path lies outside the workspace folder is refused (the replay writes to its
// warehouses; kInvalidArgument naming it). Each of `declared_keys` (email -> key fingerprint) is
// added to people.<email>.keys. Each of `warehouse_settings` (warehouse -> key -> value) is set on
// that warehouse (a simulated warehouse's api_url and the key the replay made for it).
Result<ScratchWorkspace> MakeScratchWorkspace(const std::filesystem::path& workspace,
                                              const std::filesystem::path& scratch,
                                              const std::map<std::string, std::string>& urls,
                                              const std::map<std::string, std::string>& receivers = {},
                                              const std::map<std::string, std::string>& declared_keys = {},
                                              const std::map<std::string, std::map<std::string, std::string>>&
                                                  warehouse_settings = {});

}  // namespace dw::replay
