// Turns the validated JSON of a workspace file into a Workspace, checking what the schema alone
// cannot: references between sections (an asset's domain, a check's warehouse), the keys that
// depend on a `type:`, the version, and relative paths. Internal to the config stage.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/json.h"
#include "config/schema_validator.h"
#include "config/workspace.h"

namespace dw::config {

// Builds the workspace in folder `dir` from `doc` (SchemaValidator output for `file`), appending
// every problem to `errors` at the position `positions` records for the key. Values the validator
// rejected are absent from `doc` and are skipped here, so no problem is reported twice.
Workspace BuildWorkspace(const Json& doc, const PositionMap& positions,
                         const std::filesystem::path& dir, const std::string& file,
                         std::vector<ConfigError>* errors);

}  // namespace dw::config
