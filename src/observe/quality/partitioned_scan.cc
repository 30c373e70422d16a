#include "observe/quality/partitioned_scan.h"

#include <memory>
#include <thread>
#include <vector>

namespace dw::observe::quality {
namespace {

using warehouse::SqlRow;
using warehouse::SqlValue;

enum class Merge { kSum, kMin, kMax };

// SQLite's order for min() and max() under the BINARY collation: numbers before text, numbers by
// value, text by bytes. NULLs never reach here (min and max skip them).
int Compare(const SqlValue& a, const SqlValue& b) {
  auto rank = [](const SqlValue& v) { return std::holds_alternative<std::string>(v) ? 2 : 1; };
  if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
  if (rank(a) == 2) return std::get<std::string>(a).compare(std::get<std::string>(b));
  auto num = [](const SqlValue& v) {
    if (const auto* n = std::get_if<int64_t>(&v)) return static_cast<long double>(*n);
    return static_cast<long double>(std::get<double>(v));
  };
  return num(a) < num(b) ? -1 : num(a) > num(b) ? 1 : 0;
}

SqlValue Combine(const SqlValue& a, const SqlValue& b, Merge how) {
  if (std::holds_alternative<std::monostate>(a)) return b;
  if (std::holds_alternative<std::monostate>(b)) return a;
  if (how == Merge::kSum) {
    if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b))
      return std::get<int64_t>(a) + std::get<int64_t>(b);
    auto num = [](const SqlValue& v) {
      return std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                : std::get<double>(v);
    };
    return num(a) + num(b);
  }
  int c = Compare(a, b);
  return (how == Merge::kMin) == (c <= 0) ? a : b;
}

// How each column of the scan's row merges across partitions.
std::vector<Merge> MergeKinds(const AggregateScan& scan, size_t columns) {
  std::vector<Merge> kinds(columns, Merge::kSum);  // count(*), nulls, windows, invalid values
  if (scan.max_time) kinds[static_cast<size_t>(*scan.max_time)] = Merge::kMax;
  for (const auto& [_, lo_hi] : scan.min_max) {
    if (lo_hi.first >= 0) kinds[static_cast<size_t>(lo_hi.first)] = Merge::kMin;
    if (lo_hi.second >= 0) kinds[static_cast<size_t>(lo_hi.second)] = Merge::kMax;
  }
  return kinds;
}

}  // namespace

std::optional<Result<warehouse::QueryOutcome>> RunPartitionedScan(warehouse::Warehouse& wh,
                                                                  const warehouse::TableId& table,
                                                                  const AggregateScan& scan,
                                                                  const PartitionOptions& options) {
  const std::string rowid(wh.dialect().RowIdColumn());
  if (options.partitions < 2 || rowid.empty()) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  // The rowid bounds are two steps down the table's b-tree; a table without rowid fails here.
  Result<warehouse::QueryOutcome> bounds = wh.Query(
      "SELECT min(" + rowid + "), max(" + rowid + ") FROM " + wh.dialect().Table(table), {}, {options.timeout});
  if (!bounds.ok()) return std::nullopt;
  const auto* lo = std::get_if<int64_t>(&bounds->rows.at(0).at(0));
  const auto* hi = std::get_if<int64_t>(&bounds->rows.at(0).at(1));
  if (lo == nullptr || hi == nullptr || *hi - *lo + 1 < options.min_rows) return std::nullopt;

  const int n = options.partitions;
  std::vector<std::unique_ptr<warehouse::Warehouse>> connections;
  for (int i = 0; i < n; ++i) {
    Result<std::unique_ptr<warehouse::Warehouse>> c = wh.Reopen();
    if (!c.ok()) return std::nullopt;
    connections.push_back(std::move(*c));
  }
  // "... FROM t [WHERE filter]" gains the rowid range as two more parameters.
  const bool has_where = scan.query.sql.find(" WHERE ") != std::string::npos;
  const int first = static_cast<int>(scan.query.params.size()) + 1;
  const std::string sql = scan.query.sql + (has_where ? " AND " : " WHERE ") + rowid + " >= " +
                          wh.dialect().Param(first) + " AND " + rowid + " < " +
                          wh.dialect().Param(first + 1);
  const int64_t span = (*hi - *lo + 1 + n - 1) / n;
  std::vector<std::optional<Result<warehouse::QueryOutcome>>> parts(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      std::vector<SqlValue> params = scan.query.params;
      // Built in place: GCC 12 warns (wrongly) that a converted temporary variant may be
      // uninitialised.
      params.emplace_back(std::in_place_type<int64_t>, *lo + span * i);
      params.emplace_back(std::in_place_type<int64_t>, i == n - 1 ? *hi + 1 : *lo + span * (i + 1));
      parts[static_cast<size_t>(i)] = connections[static_cast<size_t>(i)]->Query(sql, params, {options.timeout});
    });
  }
  for (std::thread& t : threads) t.join();

  warehouse::QueryOutcome merged;
  std::vector<Merge> kinds;
  for (auto& part : parts) {
    if (!part->ok()) return Result<warehouse::QueryOutcome>(part->status());
    const SqlRow& row = (*part)->rows.at(0);
    if (merged.rows.empty()) {
      merged.rows.push_back(row);
      kinds = MergeKinds(scan, row.size());
      continue;
    }
    for (size_t c = 0; c < row.size(); ++c) merged.rows[0][c] = Combine(merged.rows[0][c], row[c], kinds[c]);
  }
  merged.duration = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  return Result<warehouse::QueryOutcome>(std::move(merged));
}

}  // namespace dw::observe::quality
