// Kestra flow YAML (graph/kestra_flows.h): what `dw graph load` reads from a flows folder, SQL
// properties included. The input is one flow file's text; it is read into a batch or refused
// with "<file>:<line>: ...", never a crash or an escaping exception.
#include "graph/graph_index.h"
#include "graph/kestra_flows.h"
#include "graph/source_batch.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(dw::fuzz::AsText(data, size));
  static const dw::graph::GraphIndex empty_index;
  dw::graph::SourceBatch batch;
  dw::Status st = dw::graph::AddKestraFlow(text, "flow.yml", dw::graph::KestraFlowOptions{}, empty_index, &batch);
  if (!st.ok() && st.message().rfind("flow.yml", 0) != 0)
    dw::fuzz::Broken("a refused flow whose error does not start with its file name");
  return 0;
}
