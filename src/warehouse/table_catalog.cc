#include "warehouse/table_catalog.h"

#include "warehouse/backends.h"

namespace dw::warehouse {

Result<CatalogRead> ReadTableCatalog(const config::WarehouseConfig& config, Warehouse& wh,
                                     const std::vector<std::string>& schemas) {
  const WarehouseBackend* b = FindWarehouseBackend(config.type);
  if (b == nullptr) return InvalidArgument("warehouse '" + config.name + "' has unknown type '" + config.type + "'");
  if (b->catalog == nullptr)
    return FailedPrecondition("warehouse '" + config.name + "': automatic monitors are not built for " +
                              std::string(b->type) + " yet (its catalog reader is missing)");
  return b->catalog(wh, schemas);
}

bool HasTableCatalog(std::string_view type) {
  const WarehouseBackend* b = FindWarehouseBackend(type);
  return b != nullptr && b->catalog != nullptr;
}

}  // namespace dw::warehouse
