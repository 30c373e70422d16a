#include "platforms/flink/deployment_manifest.h"

#include "config/yaml_documents.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace dw::platforms::flink {
namespace {

std::string Scalar(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap() || !n[key] || !n[key].IsScalar()) return "";
  return n[key].as<std::string>();
}

Json OptJson(const std::optional<bool>& v) { return v ? Json(*v) : Json(nullptr); }
Json OptJson(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

DeploymentSpec ParseDocument(const YAML::Node& doc, const std::string& file) {
  DeploymentSpec d;
  d.file = file;
  d.name = Scalar(doc["metadata"], "name");
  d.namespace_ = Scalar(doc["metadata"], "namespace");
  if (d.name.empty()) throw std::invalid_argument("FlinkDeployment without metadata.name");
  YAML::Node spec = doc["spec"];
  if (!spec || !spec.IsMap()) throw std::invalid_argument("FlinkDeployment " + d.name + " has no spec");
  d.image = Scalar(spec, "image");
  d.flink_version = Scalar(spec, "flinkVersion");
  YAML::Node job = spec["job"];
  if (job && job.IsMap()) {
    d.jar_uri = Scalar(job, "jarURI");
    if (job["upgradeMode"]) d.upgrade_mode = job["upgradeMode"].as<std::string>();
    if (job["allowNonRestoredState"]) d.allow_non_restored_state = job["allowNonRestoredState"].as<bool>();
    d.initial_savepoint_path = Scalar(job, "initialSavepointPath");
    if (job["savepointRedeployNonce"]) d.savepoint_redeploy_nonce = job["savepointRedeployNonce"].as<int64_t>();
    if (job["parallelism"]) d.parallelism = job["parallelism"].as<int64_t>();
    if (job["state"]) d.state = job["state"].as<std::string>();
  }
  if (d.upgrade_mode != "savepoint" && d.upgrade_mode != "last-state" && d.upgrade_mode != "stateless")
    throw std::invalid_argument("FlinkDeployment " + d.name + ": spec.job.upgradeMode '" + d.upgrade_mode +
                                "' is not savepoint, last-state or stateless");
  return d;
}

bool Stateful(const std::string& mode) { return mode == "savepoint" || mode == "last-state"; }

}  // namespace

Json DeploymentSpec::ToJson() const {
  return {{"name", name}, {"namespace", namespace_}, {"file", file}, {"image", image},
          {"flinkVersion", flink_version}, {"job.jarURI", jar_uri}, {"job.upgradeMode", upgrade_mode},
          {"job.allowNonRestoredState", OptJson(allow_non_restored_state)},
          {"job.initialSavepointPath", initial_savepoint_path},
          {"job.savepointRedeployNonce", OptJson(savepoint_redeploy_nonce)},
          {"job.parallelism", OptJson(parallelism)}, {"job.state", state}};
}

DeploymentSpec DeploymentSpec::FromJson(const Json& j) {
  DeploymentSpec d;
  d.name = j.value("name", "");
  d.namespace_ = j.value("namespace", "");
  d.file = j.value("file", "");
  d.image = j.value("image", "");
  d.flink_version = j.value("flinkVersion", "");
  d.jar_uri = j.value("job.jarURI", "");
  d.upgrade_mode = j.value("job.upgradeMode", "stateless");
  if (j.contains("job.allowNonRestoredState") && j["job.allowNonRestoredState"].is_boolean())
    d.allow_non_restored_state = j["job.allowNonRestoredState"].get<bool>();
  d.initial_savepoint_path = j.value("job.initialSavepointPath", "");
  if (j.contains("job.savepointRedeployNonce") && j["job.savepointRedeployNonce"].is_number_integer())
    d.savepoint_redeploy_nonce = j["job.savepointRedeployNonce"].get<int64_t>();
  if (j.contains("job.parallelism") && j["job.parallelism"].is_number_integer())
    d.parallelism = j["job.parallelism"].get<int64_t>();
  d.state = j.value("job.state", "running");
  return d;
}

Result<ManifestFolder> ReadManifestFolder(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return NotFound("FlinkDeployment manifests folder " + dir.string() + " does not exist");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ManifestFolder out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().size() > 4 * 1024 * 1024) {
      out.errors.push_back(f.string() + ": larger than 4 MiB; not read");
      continue;
    }
    try {
      for (const auto& doc : config::LoadYamlDocuments(ss.str())) {
        if (!doc.IsMap() || Scalar(doc, "kind") != "FlinkDeployment") continue;
        try {
          out.deployments.push_back(ParseDocument(doc, f.filename().string()));
        } catch (const std::exception& e) {
          out.errors.push_back(f.string() + ":" + std::to_string(doc.Mark().line + 1) + ": " + e.what());
        }
      }
    } catch (const YAML::Exception& e) {
      out.errors.push_back(f.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }
  return out;
}

std::optional<SpecChange> StandingRisk(const DeploymentSpec& s) {
  if (!s.allow_non_restored_state.value_or(false) || !Stateful(s.upgrade_mode)) return std::nullopt;
  return SpecChange{"job.allowNonRestoredState", nullptr, true, 0.6,
                    "allowNonRestoredState is on for a stateful job (upgradeMode " + s.upgrade_mode +
                        "): the next upgrade that cannot map an operator's state drops it instead of failing"};
}

std::vector<SpecChange> DiffDeployments(const DeploymentSpec& before, const DeploymentSpec& after) {
  std::vector<SpecChange> out;
  Json b = before.ToJson(), a = after.ToJson();
  for (const auto& [field, value] : a.items()) {
    if (field == "file" || field == "name" || field == "namespace" || b[field] == value) continue;
    SpecChange c{field, b[field], value, 0.3, ""};
    if (field == "job.upgradeMode" && value == "stateless" && Stateful(before.upgrade_mode)) {
      c.risk = 0.8;
      c.reason = "upgradeMode went from " + before.upgrade_mode + " to stateless: the next upgrade starts with empty state";
    } else if (field == "job.allowNonRestoredState" && value == true) {
      c.risk = Stateful(after.upgrade_mode) ? 0.7 : 0.3;
      c.reason = "allowNonRestoredState was turned on: a restore that cannot map state will skip it silently";
    } else if (field == "job.savepointRedeployNonce") {
      c.risk = 0.6;
      c.reason = "savepointRedeployNonce changed: the operator redeploys the job from initialSavepointPath " +
                 after.initial_savepoint_path;
    } else if (field == "job.initialSavepointPath") {
      c.risk = 0.5;
      c.reason = "initialSavepointPath changed: a redeploy restores from a different savepoint";
    } else if (field == "image" || field == "job.jarURI" || field == "flinkVersion") {
      c.risk = 0.4;
      c.reason = field + " changed: a new version of the job (its plan, and so its state mapping, may change)";
    } else if (field == "job.state") {
      c.risk = 0.3;
      c.reason = "the job was set to " + value.get<std::string>();
    } else if (field == "job.parallelism") {
      c.risk = 0.2;
      c.reason = "parallelism changed: the job is rescaled from a savepoint or checkpoint";
    } else {
      c.reason = field + " changed";
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.risk > y.risk; });
  return out;
}

}  // namespace dw::platforms::flink
