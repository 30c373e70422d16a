#include "config/watch_settings.h"

#include <fstream>
#include <sstream>

#include "config/duration.h"
#include "config/yaml_documents.h"

namespace dw::config {

Result<std::chrono::milliseconds> LeaseHistoryOf(const Workspace& ws) {
  if (ws.file.empty()) return kDefaultLeaseHistory;
  const std::string file = ws.file.string();
  std::ifstream in(ws.file, std::ios::binary);
  if (!in) return InvalidArgument(file + ": cannot read the workspace file again for watch.lease_history");
  std::stringstream text;
  text << in.rdbuf();
  std::string value;
  try {
    std::vector<YAML::Node> docs = LoadYamlDocuments(text.str());
    if (docs.empty() || !docs[0].IsMap()) return kDefaultLeaseHistory;
    YAML::Node watch = docs[0]["watch"];
    if (!watch || !watch.IsMap()) return kDefaultLeaseHistory;
    YAML::Node history = watch["lease_history"];
    if (!history) return kDefaultLeaseHistory;
    if (!history.IsScalar()) return InvalidArgument(file + ": watch.lease_history must be a duration (e.g. 6h, 1d)");
    value = history.Scalar();
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ": the workspace file changed since it was loaded: " + e.msg);
  }
  Result<std::chrono::milliseconds> parsed = ParseDuration(value);
  if (!parsed.ok() || *parsed < kMinLeaseHistory)
    return InvalidArgument(file + ": watch.lease_history " + value + " is not a duration of at least 10m");
  return *parsed;
}

}  // namespace dw::config
