// A bound on how large a YAML document reads once its aliases are followed. Aliases make a
// document a graph: a few hundred bytes of nested `&a [*b, *b, ...]` read as billions of nodes (a
// "billion laughs"), and any reader that walks or converts the tree would expand every one until
// memory ran out. Every reader of untrusted YAML (the workspace file, scenario files, Kestra flows)
// checks this before it walks.
#pragma once

#include <cstddef>

#include <yaml-cpp/yaml.h>

namespace dw::config {

// Far more nodes than any real file holds (a workspace with 10,000 monitors is well under it).
inline constexpr size_t kMaxYamlNodes = 1'000'000;

// Whether `node`, with every alias followed, has at most `max_nodes` nodes and nests at most 256
// deep (an alias inside the node it names makes the tree infinite). Stops at either bound, so the
// check itself is bounded in time and stack.
bool YamlWithinNodeBudget(const YAML::Node& node, size_t max_nodes = kMaxYamlNodes);

}  // namespace dw::config
