// Stitching: the names sources use for a dataset (a dbt relation_name, an OpenLineage
// namespace/name or symlink, a table named in SQL) resolved to one canonical id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_index.h"

namespace dw::graph {

// Returns the canonical id for a dataset a source names: the first of `names` that is a known id
// or a recorded alias; else the one asset of `kind` whose short name is `short_name` (when exactly
// one has it); else `fallback`.
std::string ResolveName(const GraphIndex& index, const std::vector<std::string>& names,
                        std::string_view kind, std::string_view short_name,
                        const std::string& fallback);

// ResolveName for a warehouse table: a table asset, else a dbt model with the same short name
// (a model is a table in the warehouse), else `fallback`.
std::string ResolveTable(const GraphIndex& index, const std::vector<std::string>& names,
                         std::string_view short_name, const std::string& fallback);

// `text` made usable as an id's instance: characters other than letters, digits, '_', '-' and '.'
// become '-' ("kafka-cluster-prod:9092" -> "kafka-cluster-prod-9092"); "unknown" when empty.
std::string SanitizeInstance(std::string_view text);

// A table's `schema.table` made usable in a table id: characters other than letters, digits, '_',
// '-', '$' and '.' become '_'.
std::string SanitizeTablePart(std::string_view text);

// `text` made usable as an id's name: whitespace and characters ids forbid become '_'.
std::string SanitizeName(std::string_view text);

}  // namespace dw::graph
