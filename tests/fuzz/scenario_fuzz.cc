// The scenario file reader (replay/replay.h, ReadScenario): scenario.yaml of `dw replay`. The
// input is the file's text; reading ends in a scenario or in kInvalidArgument naming the file.
#include "replay/replay.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dw::fuzz::WriteScratch("scenario.yaml", dw::fuzz::AsText(data, size));
  auto scenario = dw::replay::ReadScenario(dw::fuzz::ScratchDir());
  if (!scenario.ok() && scenario.status().message().find("scenario.yaml") == std::string::npos)
    dw::fuzz::Broken("a refused scenario whose error does not name the file");
  return 0;
}
