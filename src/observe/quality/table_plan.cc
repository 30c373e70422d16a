#include "observe/quality/table_plan.h"

#include <algorithm>

#include "config/suggest.h"

namespace dw::observe::quality {
namespace {

std::string KeyName(const std::vector<std::string>& key) {
  std::string out;
  for (const std::string& c : key) out += (out.empty() ? "" : ",") + c;
  return out;
}

// The columns of `names` missing from `table`, as one message, or "" when all exist.
std::string Missing(const warehouse::TableSchema& table, const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (table.Find(n) != nullptr) continue;
    out += (out.empty() ? "" : "; ") + std::string("column '") + n + "' not found in " +
           table.id.Display() + config::ClosestList(n, table.ColumnNames());
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CheckNames(const TableCheckSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& c : spec.not_null) out.emplace_back("not_null:" + c, "not_null");
  for (const auto& key : spec.unique) out.emplace_back("unique:" + KeyName(key), "unique");
  if (spec.freshness_max_age) out.emplace_back("freshness", "freshness");
  if (spec.volume) out.emplace_back("volume", "volume");
  for (const auto& [c, _] : spec.accepted_values) out.emplace_back("accepted_values:" + c, "accepted_values");
  for (const auto& [c, _] : spec.range) out.emplace_back("range:" + c, "range");
  if (spec.schema) out.emplace_back("schema", "schema");
  if (spec.row_count_change) out.emplace_back("row_count_change", "row_count_change");
  for (const CustomSpec& c : spec.custom) out.emplace_back("custom:" + c.name, "custom");
  for (const ImportedTest& t : spec.imported) out.emplace_back(t.name, t.test);
  return out;
}

Result<TableCheckSpec> SelectChecks(const TableCheckSpec& spec,
                                    const std::vector<std::string>& selection) {
  if (selection.empty()) return spec;
  std::vector<std::pair<std::string, std::string>> names = CheckNames(spec);
  std::vector<std::string> all;
  for (const auto& [n, _] : names) all.push_back(n);
  for (const std::string& s : selection) {
    bool matched = std::any_of(names.begin(), names.end(),
                               [&](const auto& n) { return n.first == s || n.second == s; });
    if (!matched) {
      std::string list;
      for (const std::string& n : all) list += (list.empty() ? "" : ", ") + n;
      return InvalidArgument("no configured check is called '" + s + "' on this table (configured: " +
                             (list.empty() ? "none" : list) + ")");
    }
  }
  auto wanted = [&](const std::string& name, const std::string& type) {
    return std::any_of(selection.begin(), selection.end(),
                       [&](const std::string& s) { return s == name || s == type; });
  };
  TableCheckSpec out;
  out.time_column = spec.time_column;
  out.pii = spec.pii;
  out.sample_key = spec.sample_key;
  out.tune = spec.tune;
  for (const ImportedTest& t : spec.imported)
    if (wanted(t.name, t.test)) out.imported.push_back(t);
  for (const std::string& c : spec.not_null)
    if (wanted("not_null:" + c, "not_null")) out.not_null.push_back(c);
  for (const auto& key : spec.unique)
    if (wanted("unique:" + KeyName(key), "unique")) out.unique.push_back(key);
  if (spec.freshness_max_age && wanted("freshness", "freshness")) out.freshness_max_age = spec.freshness_max_age;
  if (spec.volume && wanted("volume", "volume")) out.volume = spec.volume;
  for (const auto& av : spec.accepted_values)
    if (wanted("accepted_values:" + av.first, "accepted_values")) out.accepted_values.push_back(av);
  for (const auto& r : spec.range)
    if (wanted("range:" + r.first, "range")) out.range.push_back(r);
  out.schema = spec.schema && wanted("schema", "schema");
  if (spec.row_count_change && wanted("row_count_change", "row_count_change"))
    out.row_count_change = spec.row_count_change;
  for (const CustomSpec& c : spec.custom)
    if (wanted("custom:" + c.name, "custom")) out.custom.push_back(c);
  return out;
}

Result<TablePlan> PlanTable(warehouse::Warehouse& wh, const warehouse::TableSchema& table,
                            const TableCheckSpec& spec, std::optional<int64_t> since_ms) {
  TablePlan plan;
  plan.table = table;
  plan.declared = spec;
  plan.since_ms = since_ms;
  TableCheckSpec& run = plan.runnable;
  run.pii = spec.pii;
  if (Missing(table, spec.sample_key).empty()) run.sample_key = spec.sample_key;
  run.custom = spec.custom;
  run.schema = spec.schema;
  run.row_count_change = spec.row_count_change;

  // The time column is needed by freshness, volume windows and incremental runs.
  std::string time_problem;
  const bool needs_time = spec.freshness_max_age || (spec.volume && spec.volume->window) || since_ms;
  if (needs_time && spec.time_column) {
    std::string missing = Missing(table, {*spec.time_column});
    if (!missing.empty()) {
      time_problem = "time_column: " + missing;
    } else {
      Result<TimeColumn> tc = ResolveTimeColumn(wh, table, *spec.time_column);
      if (tc.ok()) {
        plan.time = *tc;
        run.time_column = spec.time_column;
      } else if (tc.status().code() == StatusCode::kInvalidArgument) {
        time_problem = tc.status().message();
      } else {
        return tc.status();  // the warehouse failed: nothing else will work either
      }
    }
  }
  if (since_ms && !plan.time) {
    return InvalidArgument("an incremental run (since) needs a usable time_column on " +
                           table.id.Display() +
                           (time_problem.empty() ? ": none is configured" : ": " + time_problem));
  }
  plan.filter = MakeRowFilter(wh.dialect(), plan.time, since_ms);

  auto admit = [&](const std::string& name, const std::vector<std::string>& columns) {
    std::string missing = Missing(table, columns);
    if (!missing.empty()) plan.refused[name] = missing;
    return missing.empty();
  };
  for (const std::string& c : spec.not_null)
    if (admit("not_null:" + c, {c})) run.not_null.push_back(c);
  for (const auto& key : spec.unique)
    if (admit("unique:" + KeyName(key), key)) run.unique.push_back(key);
  for (const auto& av : spec.accepted_values)
    if (admit("accepted_values:" + av.first, {av.first})) run.accepted_values.push_back(av);
  for (const auto& r : spec.range)
    if (admit("range:" + r.first, {r.first})) run.range.push_back(r);
  if (spec.freshness_max_age) {
    if (plan.time) run.freshness_max_age = spec.freshness_max_age;
    else plan.refused["freshness"] = time_problem.empty() ? "needs time_column" : time_problem;
  }
  if (spec.volume) {
    if (!spec.volume->window || plan.time) run.volume = spec.volume;
    else plan.refused["volume"] = time_problem.empty() ? "volume.window needs time_column" : time_problem;
  }
  for (const ImportedTest& t : spec.imported) {
    std::vector<std::string> columns = t.key;
    if (!t.column.empty()) columns.push_back(t.column);
    if (!admit(t.name, columns)) continue;
    if (t.kind == ImportedTest::Kind::kRecency) {
      Result<TimeColumn> tc = ResolveTimeColumn(wh, table, t.column);
      if (!tc.ok()) {
        if (tc.status().code() != StatusCode::kInvalidArgument) return tc.status();
        plan.refused[t.name] = tc.status().message();
        continue;
      }
      plan.recency[t.name] = *tc;
    }
    run.imported.push_back(t);
  }
  run.tune = spec.tune;
  std::string pii_missing = Missing(table, spec.pii);
  if (!pii_missing.empty()) {
    // A pii column that does not exist is a configuration mistake, but masking is keyed by name,
    // so nothing leaks; it is reported next to the results instead of stopping them.
    plan.refused["pii"] = pii_missing;
  }

  const bool aggregates = !run.not_null.empty() || run.freshness_max_age || run.volume ||
                          !run.accepted_values.empty() || !run.range.empty() ||
                          run.row_count_change.has_value() || !run.unique.empty() ||
                          !run.imported.empty();
  plan.scans = (aggregates ? 1 : 0) + static_cast<int>(run.unique.size());
  return plan;
}

}  // namespace dw::observe::quality
