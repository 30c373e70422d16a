// FlinkDeployment manifests (platforms/flink/deployment_manifest.h, ReadManifestFolder): the
// YAML files of a platform's `manifests:` folder, which `dw collect` and the FlinkDeployment diff
// read from the team's Git checkout. The input is one file's text (any number of documents). It
// is read into deployments and errors, never a crash or an escaping exception, and what is kept
// can be written as the JSON the collector stores (a value that is not UTF-8 once made that throw).
#include "platforms/flink/deployment_manifest.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace flink = dw::platforms::flink;
  static const std::filesystem::path dir = [] {
    std::filesystem::path d = dw::fuzz::ScratchDir() / "manifests";
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::filesystem::path file = dir / "deployment.yaml";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) dw::fuzz::Broken("the input could not be written");
  }
  auto folder = flink::ReadManifestFolder(dir);
  if (!folder.ok()) dw::fuzz::Broken("an existing folder was refused");
  for (const std::string& e : folder->errors)
    if (e.rfind(file.string() + ":", 0) != 0) dw::fuzz::Broken("an error that does not start with its file");
  const flink::DeploymentSpec none;
  for (const flink::DeploymentSpec& d : folder->deployments) {
    if (d.name.empty()) dw::fuzz::Broken("a deployment without a name");
    dw::Json spec = d.ToJson();
    try {
      (void)spec.dump();  // what the collector writes to its cursor and hashes into a dedup key
    } catch (const std::exception&) {
      dw::fuzz::Broken("a kept deployment whose spec cannot be written as JSON");
    }
    if (flink::DeploymentSpec::FromJson(spec).ToJson() != spec) dw::fuzz::Broken("the spec does not read back from its JSON");
    if (!flink::DiffDeployments(d, d).empty()) dw::fuzz::Broken("a deployment differs from itself");
    for (const auto& c : flink::DiffDeployments(none, d))
      if (c.reason.empty()) dw::fuzz::Broken("a change without a reason");
    (void)flink::StandingRisk(d);
  }
  return 0;
}
