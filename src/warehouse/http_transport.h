// What the REST warehouses (BigQuery, Snowflake) share about the HTTP client they are handed.
// warehouse/ stands left of net/ in the data path, so these warehouses compile against the
// interface in base/http.h only; whoever opens one (observe/, workspace/) passes the process's
// client (net/'s libcurl one), which keeps timeouts, retries, body caps and redaction in one place.
#pragma once

#include <string_view>

#include "base/status.h"
#include "config/workspace.h"

namespace dw::warehouse {

// The refusal of a REST warehouse opened without an HTTP client: kFailedPrecondition naming the
// warehouse and the engine ("BigQuery"), so a caller that forgot to pass one is told, not crashed.
Status NoHttpClient(const config::WarehouseConfig& config, std::string_view engine);

}  // namespace dw::warehouse
