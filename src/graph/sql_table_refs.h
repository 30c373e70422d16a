// A small table-reference extractor for the SQL in Kestra query tasks: which tables a statement
// writes (INSERT, MERGE, CREATE TABLE/VIEW, UPDATE, DELETE, TRUNCATE targets) and reads (FROM,
// JOIN and MERGE ... USING sources). It is a scanner, not a parser: comments, string literals and
// Jinja/Pebble expressions ({{ }}, {% %}) are skipped; names of WITH clauses, subqueries and
// table functions are not tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dw::graph {

struct TableRefs {
  std::vector<std::string> reads;   // in order of first appearance, unquoted, e.g. "raw.sessions"
  std::vector<std::string> writes;
};

// The tables `sql` (one or more statements) reads and writes. Never fails: what it cannot
// recognise it skips.
TableRefs ExtractTableRefs(std::string_view sql);

}  // namespace dw::graph
