// Walks a parsed YAML document against a ValueSchema: substitutes ${ENV} in scalars, checks every
// key and type, and converts what is valid to JSON. Internal to the config stage.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "base/json.h"
#include "config/env_substitution.h"
#include "config/workspace.h"
#include "config/workspace_schema.h"

namespace dw::config {

// Where a value sits in the file (1-based).
struct SourcePos {
  int line = 0;
  int column = 0;
};

// Key path ("checks[0].freshness.max_age") -> position of the value (of the key when the value is
// empty), for every value the validator visited.
using PositionMap = std::map<std::string, SourcePos>;

class SchemaValidator {
 public:
  // Errors are appended to `errors`, positions recorded in `positions`; both must outlive this.
  SchemaValidator(std::string file, EnvLookup env, std::vector<ConfigError>* errors,
                  PositionMap* positions);

  // Returns the JSON form of `node`. A value that fails validation is reported and left out of
  // its parent object (so later stages see it as absent); the returned JSON is null when `node`
  // itself is invalid. Never throws.
  Json Validate(const YAML::Node& node, const ValueSchema& schema, const std::string& path);

 private:
  Json ValidateObject(const YAML::Node& node, const ValueSchema& schema, const std::string& path);
  Json ValidateMap(const YAML::Node& node, const ValueSchema& schema, const std::string& path);
  Json ValidateList(const YAML::Node& node, const ValueSchema& schema, const std::string& path);
  Json ValidateScalar(const YAML::Node& node, const ValueSchema& schema, const std::string& path);
  // The scalar's text after ${ENV} substitution; nullopt (and an error) when substitution fails.
  std::optional<std::string> ScalarText(const YAML::Node& node, const ValueSchema& schema,
                                        const std::string& path);
  // Reports a key that appears twice in one mapping; returns true iff `key` was seen before.
  bool IsDuplicate(const YAML::Node& key, std::map<std::string, int>* seen, const std::string& path);
  // Calls visit(key, value, name, key path) for each entry of the map `node`, after reporting
  // (and skipping) keys that are not plain names and duplicate keys.
  void ForEachEntry(const YAML::Node& node, const std::string& path,
                    const std::function<void(const YAML::Node&, const YAML::Node&, const std::string&,
                                             const std::string&)>& visit);
  void Error(const YAML::Mark& mark, const std::string& path, std::string message);

  std::string file_;
  EnvLookup env_;
  std::vector<ConfigError>* errors_;
  PositionMap* positions_;
};

// Joins a parent path and a key: "" + "name" -> "name", "warehouses" + "main" -> "warehouses.main".
std::string JoinPath(const std::string& parent, const std::string& key);

}  // namespace dw::config
