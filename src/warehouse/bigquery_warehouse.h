// BigQuery as a warehouse (`type: bigquery`), reached through its REST API (jobs.query and
// jobs.getQueryResults) with a service account's OAuth token (bigquery_auth.h).
#pragma once

#include <memory>
#include <string>

#include "base/http.h"
#include "config/workspace.h"
#include "warehouse/history.h"
#include "warehouse/probe.h"
#include "warehouse/spend.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Opens the warehouse of `config` (project, location, credentials, api_url, token_url): reads the
// key file; no request is made until the first query. kNotFound/kInvalidArgument for a key file
// that cannot be used (never quoting the key). Its calls go through `http`, which must outlive it; without one
// (nullptr) it is kFailedPrecondition. The history, spend and probe below take theirs the same way.
Result<std::unique_ptr<Warehouse>> OpenBigQueryWarehouse(const config::WarehouseConfig& config, HttpClient* http);

// The project's jobs that wrote tables (bigquery_history.cc).
Result<std::unique_ptr<WarehouseHistory>> OpenBigQueryHistory(const config::WarehouseConfig& config, HttpClient* http);

// The project's per-job bytes billed and slot time (bigquery_spend.cc).
Result<std::unique_ptr<WarehouseSpend>> OpenBigQuerySpend(const config::WarehouseConfig& config, HttpClient* http);

// Fetches a token and runs SELECT 1 within `timeout`; never throws.
WarehouseProbe ProbeBigQueryWarehouse(const config::WarehouseConfig& config, std::chrono::milliseconds timeout, HttpClient* http);
// "bigquery://PROJECT (LOCATION) at API_URL": no secret is part of it.
std::string BigQueryLocation(const config::WarehouseConfig& config);

// BigQuery's SQL dialect (bigquery_dialect.cc) naming tables in `project`; an open warehouse
// answers dialect() with the one of its own project.
std::unique_ptr<Dialect> MakeBigQueryDialect(const std::string& project);
// The registry's dialect: tables named `dataset`.`table`, resolved in the job's project.
const Dialect& BigQueryDialect();

}  // namespace dw::warehouse
