// A small table-reference extractor for the SQL of Kestra tasks and triggers: which tables a
// statement writes (INSERT [OR REPLACE|IGNORE], REPLACE, MERGE, CREATE TABLE/VIEW, UPDATE, DELETE,
// TRUNCATE, COPY ... FROM targets) and reads (FROM, JOIN, MERGE ... USING, DELETE ... USING, COPY
// ... TO). It is a scanner, not a parser: comments, string literals (standard, E'...', $tag$...$tag$)
// and Jinja/Pebble tags ({% %}, {# #}) are skipped; a {{ expression }} standing where a name is
// stays in the name as written (the caller decides what it stands for); names of WITH clauses,
// subqueries and table functions are not tables; an upsert's DO UPDATE / ON DUPLICATE KEY UPDATE,
// FOR UPDATE and ON DELETE/UPDATE name no table.
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
