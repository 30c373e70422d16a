// Test support: the crm workspace of tests/schema/testdata/crm (orders-value in a Schema Registry
// simulator, the dbt manifest whose models read its fields), for the schema tools' tests.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/agent_workspace.h"
#include "tests/support/build_paths.h"

namespace dw::testing {

// A file of tests/schema/testdata/crm.
inline std::string CrmFixture(const std::string& name) {
  return ReadWholeFile(std::filesystem::path(DW_SOURCE_DIR) / "tests/schema/testdata/crm" / name);
}

// Starts the registry simulator and writes the crm workspace pointing at it. False when the
// simulator did not start.
// `extra_yaml` is appended to dataworkers.yaml (top-level keys the fixture does not set).
inline bool WriteCrmWorkspace(AgentWorkspace& ws, const std::string& extra_yaml = "") {
  if (!ws.StartSim(sim::Platform::kSchemaRegistry, LoadScript("tests/schema/testdata/crm/registry.json"))) return false;
  std::string yaml = CrmFixture("dataworkers.yaml");
  const std::string from = "${DW_REGISTRY_URL:-http://127.0.0.1:18085}";
  const size_t at = yaml.find(from);
  if (at == std::string::npos) return false;
  yaml.replace(at, from.size(), "{SIM}");
  ws.Write("dataworkers.yaml", yaml + extra_yaml);
  ws.Write("target/manifest.json", CrmFixture("target/manifest.json"));
  return true;
}

}  // namespace dw::testing
