#include "config/yaml_budget.h"

namespace dw::config {
namespace {

// An alias may point at a node that holds it (`a: &a [*a]`): the tree is then infinite, and the
// depth bound stops the walk long before the stack would run out.
constexpr int kMaxDepth = 256;

bool Walk(const YAML::Node& node, size_t max_nodes, size_t& seen, int depth) {
  if (++seen > max_nodes || depth > kMaxDepth) return false;
  if (node.IsSequence()) {
    for (const auto& child : node)
      if (!Walk(child, max_nodes, seen, depth + 1)) return false;
  } else if (node.IsMap()) {
    for (const auto& entry : node)
      if (!Walk(entry.first, max_nodes, seen, depth + 1) || !Walk(entry.second, max_nodes, seen, depth + 1))
        return false;
  }
  return true;
}

}  // namespace

bool YamlWithinNodeBudget(const YAML::Node& node, size_t max_nodes) {
  size_t seen = 0;
  return Walk(node, max_nodes, seen, 0);
}

}  // namespace dw::config
