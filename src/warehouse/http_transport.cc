#include "warehouse/http_transport.h"

#include <string>

namespace dw::warehouse {

Status NoHttpClient(const config::WarehouseConfig& config, std::string_view engine) {
  return FailedPrecondition("warehouse '" + config.name + "': " + std::string(engine) +
                            " is reached over HTTP and no HTTP client was given to open it");
}

}  // namespace dw::warehouse
