// MCP's JSON-RPC message parsing and dispatch (mcp/session.h): ParseMessage on each line of the
// input, then Session::Handle for what parses, in one session per input, in the order of the
// lines, so the fuzzer reaches initialize, lists, reads, prompts and tool calls with arguments
// checked against their input schemas. The catalog is the conformance fixtures' (mcp/
// conformance_fixtures.h) without the four tools that sleep or wait a minute for the client's
// answer. Properties: a parse failure carries a complete JSON-RPC error; every message the server
// sends is a JSON-RPC 2.0 object.
#include <memory>
#include <mutex>

#include "mcp/conformance_fixtures.h"
#include "mcp/session.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

class CheckingSink final : public dw::mcp::MessageSink {
 public:
  void Send(const dw::Json& message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!message.is_object() || message.value("jsonrpc", "") != "2.0")
      dw::fuzz::Broken("the server sent something that is not a JSON-RPC 2.0 object");
    (void)message.dump();  // what a transport does with it; must not throw on invalid UTF-8
  }

 private:
  std::mutex mu_;
};

std::shared_ptr<const dw::mcp::Catalog> FixtureCatalog() {
  dw::mcp::Catalog all;
  dw::mcp::AddConformanceFixtures(all);
  auto quick = std::make_shared<dw::mcp::Catalog>();
  for (const auto& tool : all.tools()) {
    if (tool.name == "test_tool_with_logging" || tool.name == "test_tool_with_progress" ||
        tool.name == "test_sampling" || tool.name == "test_elicitation")
      continue;
    (void)quick->AddTool(tool);
  }
  for (const auto& r : all.resources()) (void)quick->AddResource(r);
  for (const auto& t : all.resource_templates()) (void)quick->AddResourceTemplate(t);
  for (const auto& p : all.prompts()) (void)quick->AddPrompt(p);
  return quick;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto catalog = FixtureCatalog();
  dw::mcp::Limits limits;
  limits.max_message_bytes = 64 * 1024;
  limits.max_json_depth = 32;
  limits.tools_page_size = 3;
  limits.client_request_timeout = std::chrono::milliseconds(10);
  dw::mcp::Session session(catalog, {"dw-fuzz", "Fuzz", "0", ""}, limits);
  CheckingSink sink;
  std::string_view text = dw::fuzz::AsText(data, size);
  for (int lines = 0; !text.empty() && lines < 16; ++lines) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    dw::mcp::ParsedMessage parsed = dw::mcp::ParseMessage(line, limits);
    if (!parsed.ok) {
      if (!parsed.error.is_object() || !parsed.error.contains("error") || !parsed.error["id"].is_null())
        dw::fuzz::Broken("a parse failure without a complete JSON-RPC error (id null)");
      sink.Send(parsed.error);
      continue;
    }
    session.Handle(parsed.message, sink);
  }
  session.Close();
  return 0;
}
