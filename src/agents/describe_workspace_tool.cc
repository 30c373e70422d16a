#include "agents/agents.h"
#include "workspace/describe.h"

namespace dw::agents {

mcp::ToolSpec DescribeWorkspaceTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "describe_workspace";
  t.title = "Describe the workspace";
  t.description =
      "What this Data Workers workspace configures: warehouses, platforms, domains, assets, checks "
      "and monitors, with a reachability probe of each warehouse, platform and the state store. "
      "Read-only. Set probe to false to skip contacting anything.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "probe": {"type": "boolean", "default": true,
                "description": "Probe each warehouse, platform and the state store (default true)."}
    },
    "additionalProperties": false
  })");
  t.output_schema = workspace::DescribeOutputSchema();
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    workspace::DescribeOptions options;
    options.probe = args.value("probe", true);
    auto d = workspace::DescribeWorkspace(*services, options);
    if (!d.ok()) return mcp::ToolResult::Error(d.status().message());
    return mcp::ToolResult::Structured(std::move(d).value());
  };
  return t;
}

}  // namespace dw::agents
