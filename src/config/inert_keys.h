// Keys of dataworkers.yaml that this build accepts but does not act on yet, so that a workspace
// written for the features being built still loads, and `dw validate` warns instead of letting a
// configured Slack webhook silently do nothing. One list, as data: when a feature lands, its
// entries are deleted here (and its docs drop "not built yet").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/workspace.h"

namespace dw::config {

// A key path ("notify", "domains.*.approvers": `*` stands for any one map key) and what is not
// built yet.
struct InertKey {
  std::string path;
  std::string not_built;
};

// Every key accepted but not acted on by this build.
const std::vector<InertKey>& InertKeys();

// One warning per inert key that `file` (a dataworkers.yaml) sets, in file order, each with its
// line and key path (message: "accepted but not acted on: ..."). Empty when the file sets none or
// cannot be read (its errors are LoadWorkspace's to report).
std::vector<ConfigError> InertKeyWarnings(const std::filesystem::path& file);

}  // namespace dw::config
