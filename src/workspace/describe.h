// What a workspace configures, with a reachability probe of every warehouse, platform and the
// state store. Backs the `describe_workspace` tool of every agent and `dw describe`.
#pragma once

#include "workspace/services.h"
#include "base/json.h"

namespace dw::workspace {

struct DescribeOptions {
  bool probe = true;  // false: report configuration only, contact nothing
  std::chrono::milliseconds timeout{3000};  // per probe; probes run in parallel
};

// What `ws` configures, without contacting anything (the probe=false description). Pure.
Json DescribeConfiguration(const config::Workspace& ws);

// Returns the description (shape: DescribeOutputSchema()), or the workspace's load error.
Result<Json> DescribeWorkspace(Services& services, const DescribeOptions& options);

// The JSON Schema of DescribeWorkspace's result (the tool's outputSchema).
const Json& DescribeOutputSchema();

// A short human summary of a description, for the CLI.
std::string DescribeAsText(const Json& description);

}  // namespace dw::workspace
