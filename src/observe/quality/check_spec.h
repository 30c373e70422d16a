// The checks declared on one table, in the workspace's vocabulary (docs/workspace.md, `checks`),
// parsed into plain values. The same parser reads a workspace block and an inline check sent
// through MCP, so both speak exactly one language; only the workspace may carry SQL.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::observe::quality {

struct VolumeSpec {
  std::optional<int64_t> min_rows;
  std::optional<int64_t> max_rows;
  std::optional<std::chrono::milliseconds> window;  // thresholds apply to rows in the last window
};

struct RangeSpec {
  std::optional<double> min;
  std::optional<double> max;
};

struct RowCountChangeSpec {
  std::optional<double> max_drop_pct;
  std::optional<double> max_growth_pct;
};

// A team-written query returning one number (trusted: it comes from the workspace file).
struct CustomSpec {
  std::string name;
  std::string sql;
  std::optional<double> must_be;
  std::optional<std::pair<double, double>> between;
};

struct TableCheckSpec {
  std::optional<std::string> time_column;
  std::vector<std::string> not_null;
  std::vector<std::vector<std::string>> unique;  // each a key set of one or more columns
  std::optional<std::chrono::milliseconds> freshness_max_age;
  std::optional<VolumeSpec> volume;
  std::vector<std::pair<std::string, std::vector<Json>>> accepted_values;  // column -> values
  std::vector<std::pair<std::string, RangeSpec>> range;
  bool schema = false;
  std::optional<RowCountChangeSpec> row_count_change;
  std::vector<CustomSpec> custom;
  std::vector<std::string> pii;
  // The columns that identify a row in failed-row samples: the first declared unique key (kept
  // when a run selects other checks), else none.
  std::vector<std::string> sample_key;

  // True when the block declares no check at all.
  bool Empty() const;
};

// Where a spec came from decides what it may hold.
enum class SpecSource { kWorkspace, kInline };

// Parses a check block (the keys of one `checks:` item; `table` is ignored). Unknown keys, wrong
// types and inconsistent values fail with kInvalidArgument naming `path` and the key, e.g.
// "check.range.balance.min: expected a number". An inline spec may not hold `custom` (SQL is never
// taken from a caller).
Result<TableCheckSpec> ParseCheckSpec(const Json& block, const std::string& path, SpecSource source);

}  // namespace dw::observe::quality
