// A scenario's warehouse reached over an API (Snowflake, BigQuery), served by dw-sim with a key
// pair the replay makes for it: the private key is written into the scratch folder for the product
// (Snowflake's PKCS#8 file, or BigQuery's service-account key file), the public half registered
// with the simulator (the workspace's Snowflake user, BigQuery's token endpoint), so the product
// signs in as it would on the real service and no key is ever stored with a scenario.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "config/workspace.h"
#include "replay/simulator_process.h"

namespace dw::replay {

struct SimulatedWarehouse {
  std::unique_ptr<SimulatorProcess> process;
  // What the scratch workspace sets on the warehouse: api_url and private_key (Snowflake), or
  // api_url, token_url and credentials (BigQuery).
  std::map<std::string, std::string> settings;
};

// Starts `binary` for `warehouse` (type snowflake or bigquery) with `script` (the scenario's dw-sim
// script), to which the warehouse's account, database and user with a new key's public half
// (Snowflake), or its project, location and a new service-account key file (BigQuery), are added;
// the key and the completed script are written under `scratch`/warehouses/. kInvalidArgument
// for a warehouse type the replay cannot simulate; the simulator's own message when it fails.
Result<SimulatedWarehouse> StartSimulatedWarehouse(const std::filesystem::path& binary,
                                                   const config::WarehouseConfig& warehouse,
                                                   const std::filesystem::path& script,
                                                   const std::filesystem::path& scratch);

}  // namespace dw::replay
