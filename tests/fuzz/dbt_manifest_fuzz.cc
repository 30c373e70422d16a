// The dbt manifest reader (graph/dbt_manifest.h): what `dw graph load` reads from a project's
// target/manifest.json. The input is the manifest's text; whatever it holds, reading it ends in a
// batch or an error naming the malformed part, never in a crash.
#include "base/json_scan.h"
#include "graph/dbt_manifest.h"
#include "graph/graph_index.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dw::Json manifest = dw::ParseJsonText(dw::fuzz::AsText(data, size));
  if (manifest.is_discarded()) return 0;
  static const dw::graph::GraphIndex empty_index;
  auto batch = dw::graph::DbtManifestBatch(manifest, "main", empty_index);
  if (!batch.ok() && batch.status().message().empty()) dw::fuzz::Broken("an error without a message");
  return 0;
}
