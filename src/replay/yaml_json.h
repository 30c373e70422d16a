// A YAML node as JSON (a tool expectation's `arguments`): plain scalars become numbers, booleans
// or null where YAML 1.2's core schema would read them so; quoted scalars stay strings.
#pragma once

#include <yaml-cpp/yaml.h>

#include "base/json.h"

namespace dw::replay {

// REQUIRES: `node` is defined. May throw YAML::Exception (callers in this stage catch it).
Json YamlToJson(const YAML::Node& node);

}  // namespace dw::replay
