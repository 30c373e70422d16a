// Writing a family's variants and replaying each from its folder.
#include "replay/families/family.h"

namespace dw::replay::families {

Result<std::vector<VariantVerdict>> WriteAndReplay(const std::vector<Story>& stories, const std::filesystem::path& out,
                                                   const ReplayOptions* options,
                                                   const std::function<void(const VariantVerdict&)>& each) {
  std::vector<VariantVerdict> verdicts;
  for (const Story& story : stories) {
    std::filesystem::path dir = out / story.name;
    DW_RETURN_IF_ERROR(WriteStory(story, dir));
    if (!options) continue;
    // Read back from the folder, so what is judged is what `dw replay DIR` replays.
    auto scenario = ReadScenario(dir);
    VariantVerdict v;
    if (!scenario.ok()) {
      v = ReplayFailed(story, "the generated scenario does not read: " + scenario.status().message());
    } else {
      auto report = Replay(*scenario, *options);
      v = report.ok() ? Judge(story, *report) : ReplayFailed(story, report.status().message());
    }
    if (each) each(v);
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

}  // namespace dw::replay::families
