// The workspace loader (config/workspace.h): YAML, ${ENV} substitution and schema validation of
// dataworkers.yaml. The input is the file's text; a fixed fake environment answers ${...} (one
// name set, one secret-looking, the rest unset). Properties: the load ends with a workspace or
// with errors, never both and never neither; every error names the file.
#include "config/workspace.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dw::fuzz::WriteScratch("dataworkers.yaml", dw::fuzz::AsText(data, size));
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "DW_FUZZ_SET") return std::string("value");
    if (name == "DW_FUZZ_TOKEN") return std::string("s3cr3t-t0ken");
    return std::nullopt;
  };
  const dw::config::LoadResult r = dw::config::LoadWorkspace(dw::fuzz::ScratchDir(), env);
  if (r.workspace.has_value() == !r.errors.empty()) dw::fuzz::Broken("a workspace and errors, or neither");
  for (const auto& e : r.errors)
    if (e.file.empty() || e.message.empty()) dw::fuzz::Broken("an error without its file or message");
  return 0;
}
