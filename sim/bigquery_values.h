// How dw-sim bigquery holds and sends BigQuery's values: TIMESTAMP as integer microseconds in its
// SQLite tables and as float seconds in scientific notation on the wire, and the SQLite functions
// that give the translated GoogleSQL (sim/bigquery_sql.h) BigQuery's meaning: bq_cast(x, 'T'),
// bq_timestamp, bq_date, bq_datetime, bq_unix_millis, bq_unix_seconds, bq_mod, bq_timestamp_seconds and the aggregate bq_countif.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

namespace dw::sim {

// "2026-12-07", "2026-12-07T01:02:03.456Z", "2026-12-07 01:02:03+00:00" as microseconds since the
// epoch (UTC); nullopt for anything else.
std::optional<int64_t> ParseTimeText(const std::string& text);

// A TIMESTAMP's wire form: exact float seconds in scientific notation ("1.7E9", "1.70000000025E9",
// "0.0"), as BigQuery's JSON rows carry it.
std::string ScientificSeconds(int64_t micros);

// Registers the bq_* functions on `db`.
void RegisterBigQueryFunctions(sqlite3* db);

}  // namespace dw::sim
