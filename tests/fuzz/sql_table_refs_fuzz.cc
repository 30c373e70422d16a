// The SQL table-reference extractor (graph/sql_table_refs.h) that reads Kestra query tasks. It
// "never fails": every input ends, with table names that are not empty.
#include "graph/sql_table_refs.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dw::graph::TableRefs refs = dw::graph::ExtractTableRefs(dw::fuzz::AsText(data, size));
  for (const auto* names : {&refs.reads, &refs.writes})
    for (const std::string& name : *names)
      if (name.empty()) dw::fuzz::Broken("an empty table name");
  return 0;
}
