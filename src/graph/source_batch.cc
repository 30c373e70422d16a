#include "graph/source_batch.h"

namespace dw::graph {

const char* OriginName(Origin origin) {
  switch (origin) {
    case Origin::kNotes: return "notes";
    case Origin::kDbt: return "dbt";
    case Origin::kOpenLineage: return "openlineage";
    case Origin::kKestra: return "kestra";
  }
  return "notes";
}

std::optional<Origin> ParseOrigin(std::string_view name) {
  for (int i = 0; i < kOriginCount; ++i)
    if (name == OriginName(static_cast<Origin>(i))) return static_cast<Origin>(i);
  return std::nullopt;
}

}  // namespace dw::graph
