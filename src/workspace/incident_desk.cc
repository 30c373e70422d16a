#include "workspace/incident_desk.h"

#include "base/identifiers.h"
#include "graph/ingest.h"
#include "warehouse/read_only_count.h"

namespace dw::workspace {

Result<int64_t> CountImpact(Services& services, const std::string& asset, const std::string& sql, TimePoint since) {
  const config::Workspace& ws = services.workspace();
  std::string wh_name = graph::DefaultWarehouse(ws);
  if (auto id = ParseAssetId(asset); id.ok() && id->kind == "table") wh_name = id->instance;
  auto wh = ws.warehouses.find(wh_name);
  if (wh == ws.warehouses.end())
    return FailedPrecondition("no warehouse '" + wh_name + "' to run the impact_sql of " + asset);
  return warehouse::RunReadOnlyCount(wh->second, sql, {{"since", FormatRfc3339(since)}}, std::chrono::seconds(30),
                                     &services.http());
}

Result<std::string> ResolveIncidentId(incidents::IncidentDesk& desk, const std::string& given) {
  Result<incidents::Incident> found = desk.Get(given);
  if (found.ok()) return found->id;
  if (found.status().code() == StatusCode::kNotFound) return given;
  return found.status();
}

Result<std::unique_ptr<incidents::IncidentDesk>> OpenIncidentDesk(Services& services) {
  auto store = services.state();
  if (!store.ok()) return store.status();
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  const config::Workspace& ws = services.workspace();
  incidents::DeskOptions options = incidents::DeskOptionsFor(ws);
  // Impact counts run the asset's trusted impact_sql on the warehouse its table lives in.
  options.impact_counter = [&services](const std::string& asset, const std::string& sql, TimePoint since) {
    return CountImpact(services, asset, sql, since);
  };
  return std::make_unique<incidents::IncidentDesk>(**store, static_cast<const graph::ContextGraph*>(*graph),
                                                   services.clock(), std::move(options));
}

}  // namespace dw::workspace
