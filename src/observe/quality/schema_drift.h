// Schema drift: a table's columns and types now, against the snapshot stored at the previous run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

struct SchemaDrift {
  bool first_run = false;
  std::vector<warehouse::Column> columns;  // now
  std::vector<std::string> added;
  std::vector<std::string> removed;
  struct TypeChange {
    std::string column, before, after;
  };
  std::vector<TypeChange> type_changed;

  bool Changed() const { return !added.empty() || !removed.empty() || !type_changed.empty(); }
  // {columns: [{name, type}], added, removed, type_changed: [{column, before, after}]}: also the
  // snapshot the next run compares with.
  Json ToJson() const;
  // One sentence: "first run: baseline of 5 columns recorded" (with `recorded` false: "first run:
  // 5 columns; not recorded, so no baseline is set"), "no change in 5 columns", or the changes.
  std::string Describe(bool recorded = true) const;
};

// Compares `table` with `previous` (a SchemaDrift::ToJson of an earlier run; nullopt or malformed:
// this is the first run).
SchemaDrift CompareSchema(const std::optional<Json>& previous, const warehouse::TableSchema& table);

}  // namespace dw::observe::quality
