// Reachability probe of a configured warehouse: can we open it and run a trivial query?
// Read-only: a SQLite file that does not exist is reported missing, never created.
#pragma once

#include <chrono>
#include <string>

#include "base/http.h"
#include "config/workspace.h"

namespace dw::warehouse {

struct WarehouseProbe {
  bool reachable = false;
  std::chrono::milliseconds latency{0};
  std::string detail;  // what was done, or why it failed (no secrets)
};

// Opens `wh` read-only and runs `SELECT 1`; never throws, never writes.
WarehouseProbe ProbeWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds timeout,
                              HttpClient* http = nullptr);

// Where the warehouse lives, safe to show: the SQLite path, or the DSN with its password hidden.
std::string DisplayLocation(const config::WarehouseConfig& wh);

}  // namespace dw::warehouse
