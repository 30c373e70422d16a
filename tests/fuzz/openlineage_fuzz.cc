// The OpenLineage reader (graph/openlineage_reader.h) and the JSON lexer under it (base/json_lexer.h):
// what `POST /api/v1/lineage` and `dw graph load` read. Properties: the fast reader and nlohmann
// agree on what is JSON (ParseJsonText falls back to nlohmann, so it must never reject what
// nlohmann accepts, nor accept what nlohmann rejects); a read event validates and resolves
// against an empty graph without crashing, whatever it holds.
#include "base/json_scan.h"
#include "graph/graph_index.h"
#include "graph/openlineage_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dw::fuzz::AsText(data, size);

  // The lexer on its own: it must end (kEnd or kError) within one token per input byte, plus one.
  dw::JsonLexer lexer(text);
  size_t tokens = 0;
  for (;;) {
    auto t = lexer.Next();
    if (t == dw::JsonLexer::Token::kEnd || t == dw::JsonLexer::Token::kError) break;
    if (++tokens > size + 1) dw::fuzz::Broken("JsonLexer returned more tokens than the input has bytes");
  }

  const dw::Json fast = dw::ParseJsonText(text);
  const dw::Json slow = dw::Json::parse(text, nullptr, false);
  if (fast.is_discarded() != slow.is_discarded() || (!fast.is_discarded() && fast != slow))
    dw::fuzz::Broken("ParseJsonText and nlohmann read the text differently");

  static const dw::graph::GraphIndex empty_index;
  const dw::TimePoint now{std::chrono::milliseconds(1764547200000)};
  auto read = dw::graph::ParseRunEventText(text, /*allow_array=*/true, /*max_depth=*/64);
  if (read.ok()) {
    for (const auto& event : read->events) {
      (void)dw::graph::ValidateRunEventFields(event);
      (void)dw::graph::RunEventFieldsBatch(event, empty_index, now);
    }
  }
  (void)dw::graph::RunEventTextBatch(text, empty_index, now);
  return 0;
}
