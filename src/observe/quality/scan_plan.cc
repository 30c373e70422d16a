#include "observe/quality/scan_plan.h"

namespace dw::observe::quality {
namespace {

using warehouse::Dialect;
using warehouse::SqlValue;

// Appends `params` to `into` and returns the placeholders in the dialect's spelling, renumbered
// after what `into` holds.
std::string AddParams(const Dialect& d, std::vector<SqlValue>& into, const std::vector<SqlValue>& params) {
  std::string out;
  for (const SqlValue& p : params) {
    into.push_back(p);
    out += (out.empty() ? "" : ", ") + d.Param(static_cast<int>(into.size()));
  }
  return out;
}

std::string AndOrWhere(const RowFilter& filter, const std::string& condition) {
  return filter.where.empty() ? " WHERE " + condition : " " + filter.where + " AND " + condition;
}

std::string Join(const Dialect& d, const std::vector<std::string>& columns) {
  std::string out;
  for (const std::string& c : columns) out += (out.empty() ? "" : ", ") + d.Quote(c);
  return out;
}

std::string NotNullKey(const Dialect& d, const std::vector<std::string>& key) {
  std::string out;
  for (const std::string& c : key) out += (out.empty() ? "" : " AND ") + d.Quote(c) + " IS NOT NULL";
  return out;
}

// "col < $a OR col > $b" for the bounds `r` has.
std::string OutOfRange(const Dialect& d, const std::string& column, const RangeSpec& r,
                       std::vector<SqlValue>& params) {
  std::string out;
  if (r.min) out = d.Quote(column) + " < " + AddParams(d, params, {*r.min});
  if (r.max) out += (out.empty() ? "" : " OR ") + d.Quote(column) + " > " + AddParams(d, params, {*r.max});
  return "(" + out + ")";
}

}  // namespace

SqlValue ValueParam(const Json& v) {
  if (v.is_boolean()) return int64_t{v.get<bool>() ? 1 : 0};
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return v.get<double>();
  return v.get<std::string>();
}

RowFilter MakeRowFilter(const Dialect& d, const std::optional<TimeColumn>& time,
                        std::optional<int64_t> since_ms) {
  RowFilter f;
  if (!since_ms || !time) return f;
  f.params.push_back(time->Param(*since_ms));
  f.where = "WHERE " + d.Quote(time->name) + " >= " + d.TimeParam(1, time->encoding, time->type);
  return f;
}

AggregateScan CompileAggregateScan(const Dialect& d, const warehouse::TableSchema& table,
                                   const TableCheckSpec& spec, const std::optional<TimeColumn>& time,
                                   const RowFilter& filter, std::optional<int64_t> window_start_ms) {
  AggregateScan scan;
  std::vector<SqlValue> params = filter.params;
  std::vector<std::string> exprs = {"count(*)"};
  auto add = [&](std::string expr) {
    exprs.push_back(std::move(expr));
    return static_cast<int>(exprs.size()) - 1;
  };
  for (const std::string& c : spec.not_null)
    scan.nulls.emplace_back(c, add("count(*) - count(" + d.Quote(c) + ")"));
  if (spec.freshness_max_age && time) scan.max_time = add(d.MaxTime(d.Quote(time->name), time->encoding));
  if (spec.volume && spec.volume->window && time && window_start_ms) {
    params.push_back(time->Param(*window_start_ms));
    scan.rows_in_window =
        add("sum(CASE WHEN " + d.Quote(time->name) + " >= " +
            d.TimeParam(static_cast<int>(params.size()), time->encoding, time->type) +
            " THEN 1 ELSE 0 END)");
  }
  for (const auto& [c, values] : spec.accepted_values) {
    std::vector<SqlValue> bound;
    for (const Json& v : values) bound.push_back(ValueParam(v));
    std::string list = AddParams(d, params, bound);
    scan.invalid.emplace_back(c, add("sum(CASE WHEN " + d.Quote(c) + " IS NOT NULL AND " +
                                     d.Quote(c) + " NOT IN (" + list + ") THEN 1 ELSE 0 END)"));
  }
  for (const auto& [c, r] : spec.range) {
    int lo = r.min ? add("min(" + d.Quote(c) + ")") : -1;
    int hi = r.max ? add("max(" + d.Quote(c) + ")") : -1;
    scan.min_max.emplace_back(c, std::make_pair(lo, hi));
    // FILTER (SQLite 3.30+, PostgreSQL 9.4+): on 2M SQLite rows, min plus this count scans in
    // about 0.9x the time of min plus max, where sum(CASE ...) took 1.1x (docs/PERFORMANCE.md).
    if (r.min || r.max)
      scan.out_of_range.emplace_back(
          c, add(d.CountWhere(OutOfRange(d, c, r, params))));
  }
  std::string select;
  for (const std::string& e : exprs) select += (select.empty() ? "" : ", ") + e;
  scan.query.sql = "SELECT " + select + " FROM " + d.Table(table.id) +
                   (filter.where.empty() ? "" : " " + filter.where);
  scan.query.params = std::move(params);
  return scan;
}

BoundQuery CompileDuplicateKeyCount(const Dialect& d, const warehouse::TableId& table,
                                    const std::vector<std::string>& key, const RowFilter& filter) {
  BoundQuery q;
  q.params = filter.params;
  std::string cols = Join(d, key);
  q.sql = "SELECT count(*) FROM (SELECT " + cols + " FROM " + d.Table(table) +
          AndOrWhere(filter, NotNullKey(d, key)) + " GROUP BY " + cols +
          " HAVING count(*) > 1) AS duplicated_keys";
  return q;
}

BoundQuery CompileSample(const Dialect& d, const warehouse::TableId& table,
                         const SampleRequest& request, const RowFilter& filter, int limit) {
  BoundQuery q;
  q.params = filter.params;
  using Kind = SampleRequest::Kind;
  if (request.kind == Kind::kDuplicateKey) {
    std::string cols = Join(d, request.key);
    q.sql = "SELECT " + cols + ", count(*) FROM " + d.Table(table) +
            AndOrWhere(filter, NotNullKey(d, request.key)) + " GROUP BY " + cols +
            " HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT " + std::to_string(limit);
    return q;
  }
  std::vector<std::string> selected = request.key;
  selected.push_back(request.column);
  std::string condition;
  const std::string col = d.Quote(request.column);
  switch (request.kind) {
    case Kind::kNull:
      condition = col + " IS NULL";
      break;
    case Kind::kNotAccepted: {
      std::vector<SqlValue> bound;
      for (const Json& v : request.accepted) bound.push_back(ValueParam(v));
      condition = col + " IS NOT NULL AND " + col + " NOT IN (" + AddParams(d, q.params, bound) + ")";
      break;
    }
    case Kind::kOutOfRange:
      condition = OutOfRange(d, request.column, request.range, q.params);
      break;
    case Kind::kDuplicateKey:
      break;
  }
  q.sql = "SELECT " + Join(d, selected) + " FROM " + d.Table(table) + AndOrWhere(filter, condition) +
          " LIMIT " + std::to_string(limit);
  return q;
}

}  // namespace dw::observe::quality
