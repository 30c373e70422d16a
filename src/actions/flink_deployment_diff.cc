// The FlinkDeployment diff proposal: redeploy the last good version from the savepoint taken
// before the bad release, drafted against the manifest the team keeps in Git.
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>

#include "actions/actions.h"
#include "platforms/flink/deployment_manifest.h"

namespace dw::actions {
namespace {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` with the value of the line "<indent>image: <from>" (quoted or not) set to `to`; nullopt
// when no such line.
std::optional<std::string> ReplaceImage(const std::string& text, const std::string& from, const std::string& to) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string::npos ? text.size() : nl;
    std::string line = text.substr(start, end - start);
    size_t key = line.find_first_not_of(' ');
    if (key != std::string::npos && key > 0 && line.compare(key, 7, "image: ") == 0) {
      std::string value = line.substr(key + 7);
      if (value == from || value == "\"" + from + "\"" || value == "'" + from + "'")
        return text.substr(0, start) + line.substr(0, key + 7) + to + text.substr(end);
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

Result<Json> DraftFlinkDeploymentDiff(const config::Workspace& workspace,
                                      const FlinkRedeployInput& input) {
  auto p = workspace.platforms.find(input.platform);
  if (p == workspace.platforms.end() || p->second.type != "flink")
    return FailedPrecondition("the workspace has no flink platform '" + input.platform + "'");
  if (p->second.manifests.empty())
    return FailedPrecondition("cannot draft a FlinkDeployment diff: platforms." + input.platform +
                              ".manifests names no folder of FlinkDeployment manifests");
  if (input.last_good_savepoint.empty())
    return FailedPrecondition("cannot draft a FlinkDeployment diff for " + input.deployment +
                              ": no savepoint taken before the bad release is recorded");
  Result<platforms::flink::ManifestFolder> folder =
      platforms::flink::ReadManifestFolder(p->second.manifests);
  if (!folder.ok())
    return FailedPrecondition("cannot draft a FlinkDeployment diff: " + folder.status().message());
  const platforms::flink::DeploymentSpec* spec = nullptr;
  for (const auto& d : folder->deployments)
    if (d.name == input.deployment) spec = &d;
  if (spec == nullptr)
    return FailedPrecondition("cannot draft a FlinkDeployment diff: no manifest in " +
                              p->second.manifests + " holds FlinkDeployment " + input.deployment);
  // The folder reader names files relative to the folder or absolutely.
  const std::string path = std::filesystem::path(spec->file).is_absolute()
                               ? spec->file
                               : (std::filesystem::path(p->second.manifests) / spec->file).string();
  Result<std::string> before = ReadFile(path);
  if (!before.ok()) return before.status();
  // The operator redeploys from initialSavepointPath only when the nonce changes.
  int64_t nonce = spec->savepoint_redeploy_nonce.value_or(0) + 1;
  Result<std::string> after =
      RedeployFromSavepoint(*before, input.deployment, input.last_good_savepoint, nonce);
  if (!after.ok()) return FailedPrecondition("cannot draft a FlinkDeployment diff: " + after.status().message());
  std::string image = spec->image, image_note;
  if (!input.last_good_image.empty() && input.last_good_image != spec->image) {
    std::optional<std::string> swapped = ReplaceImage(*after, spec->image, input.last_good_image);
    if (!swapped)
      return FailedPrecondition("cannot draft a FlinkDeployment diff: the manifest of " + input.deployment +
                                " has no spec.image line holding " + spec->image + " to set back to " +
                                input.last_good_image);
    *after = std::move(*swapped);
    image = input.last_good_image;
    image_note = "spec.image goes back from " + spec->image + " to " + input.last_good_image +
                 " (the manifest change that brought " + spec->image + " was recorded)";
  } else {
    image_note = "the diff keeps spec.image " + (spec->image.empty() ? std::string("(none)") : spec->image) +
                 ": no recorded manifest change says which image came before; set the last good version by "
                 "hand if it names the bad release";
  }
  std::error_code ec;
  std::string rel = std::filesystem::relative(path, workspace.dir, ec).string();
  if (ec || rel.empty() || rel.rfind("..", 0) == 0) rel = std::filesystem::path(path).filename().string();
  std::string diff = MakeUnifiedDiff(rel, *before, *after);
  if (diff.empty())
    return FailedPrecondition("the manifest of " + input.deployment +
                              " already redeploys from " + input.last_good_savepoint);
  Result<std::string> check = ApplyUnifiedDiff(diff, *before);
  if (!check.ok() || *check != *after) return Internal("the drafted diff does not apply to its own base");
  Json content = {
      {"file", path},
      {"base_sha256", Sha256Hex(*before)},
      {"diff", diff},
      {"undo_diff", MakeUnifiedDiff(rel, *after, *before)},
      {"redeploy_from_savepoint", input.last_good_savepoint},
      {"savepoint_redeploy_nonce", nonce},
      {"image", image},
      {"image_note", image_note},
      {"steps",
       {"apply the diff to " + rel + " in the team's Git repository and let the operator roll out "
        "FlinkDeployment " + input.deployment,
        "check the job restored from " + input.last_good_savepoint +
            " with no skipped state (allowNonRestoredState: false makes a mismatch fail the start)"}}};
  if (!input.bad_release.empty())
    content["hold_bad_release"] = "hold " + input.bad_release +
                                  " until its state migration is planned; do not redeploy it";
  return content;
}

Status CheckDiffStillApplies(const Json& content) {
  if (!content.is_object() || !content.contains("file") || !content.contains("diff") ||
      !content["file"].is_string() || !content["diff"].is_string())
    return InvalidArgument("the proposal content has no file and diff");
  Result<std::string> now = ReadFile(content["file"].get<std::string>());
  if (!now.ok()) return FailedPrecondition("conflict: " + now.status().message());
  Result<std::string> applied = ApplyUnifiedDiff(content["diff"].get<std::string>(), *now);
  return applied.ok() ? Status::Ok() : applied.status();
}

}  // namespace dw::actions
