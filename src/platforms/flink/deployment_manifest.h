// FlinkDeployment manifests (the Flink Kubernetes Operator's CRD, flink.apache.org/v1beta1) read
// from a folder of YAML the team keeps in Git, and what changed between two readings of one
// deployment: image or jar, upgradeMode, allowNonRestoredState, initialSavepointPath,
// savepointRedeployNonce, parallelism, state — with the risks such a change carries.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::platforms::flink {

// The fields of one FlinkDeployment that decide what a deploy does to state.
struct DeploymentSpec {
  std::string name;       // metadata.name
  std::string namespace_;  // metadata.namespace (may be empty)
  std::string file;       // the file it was read from
  std::string image;      // spec.image
  std::string flink_version;  // spec.flinkVersion
  std::string jar_uri;    // spec.job.jarURI
  std::string upgrade_mode = "stateless";  // spec.job.upgradeMode (the operator's default)
  std::optional<bool> allow_non_restored_state;  // spec.job.allowNonRestoredState
  std::string initial_savepoint_path;           // spec.job.initialSavepointPath
  std::optional<int64_t> savepoint_redeploy_nonce;  // spec.job.savepointRedeployNonce
  std::optional<int64_t> parallelism;           // spec.job.parallelism
  std::string state = "running";                // spec.job.state

  // The fields above as a JSON object (for cursors and evidence).
  Json ToJson() const;
  static DeploymentSpec FromJson(const Json& j);
};

struct ManifestFolder {
  std::vector<DeploymentSpec> deployments;
  std::vector<std::string> errors;  // "<file>:<line>: what is wrong"; other files are still read
};

// Reads every *.yaml / *.yml file of `dir` (not recursive), each possibly holding several
// documents; keeps the documents of kind FlinkDeployment. A document that is not one (no name, no
// spec, an unknown upgradeMode) is an error of `errors`, and so is a file that is not UTF-8 text
// (config::LoadYamlDocuments); the others are kept. NotFound if `dir` is not a folder.
Result<ManifestFolder> ReadManifestFolder(const std::filesystem::path& dir);

// One changed field and what the change means.
struct SpecChange {
  std::string field;  // e.g. "job.upgradeMode"
  Json before;
  Json after;
  double risk = 0;
  std::string reason;
};

// The changes from `before` to `after` (same deployment), riskiest first.
std::vector<SpecChange> DiffDeployments(const DeploymentSpec& before, const DeploymentSpec& after);

// A standing risk of the spec itself, or nullopt: allowNonRestoredState on for a stateful upgrade
// mode (savepoint or last-state).
std::optional<SpecChange> StandingRisk(const DeploymentSpec& spec);

}  // namespace dw::platforms::flink
