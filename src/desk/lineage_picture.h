// Internal to desk/: the lineage picture of the incident page (cause → damage → the consumers that
// act) and of the asset page (upstream → the asset → downstream), drawn as SVG on the server.
// What each box is (cause, damaged, customer-facing consumer) is written in the box, so the
// picture reads without a legend hunt.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dw::desk {

enum class NodeRole { kPlain, kSelf, kCause, kDamaged, kConsumer, kCustomerFacing };

struct PictureNode {
  std::string id;
  int column = 0;   // left to right; may be negative (upstream on the asset page)
  NodeRole role = NodeRole::kPlain;
  std::string detail;  // the second line: "acts 22:00 · in 6h 55m", the owner, ...
  int priority = 0;    // higher is shown first when a column holds more than fit
};

struct PictureEdge {
  std::string src, dst;
};

// An SVG of `nodes` in columns (at most `per_column` boxes each, the rest counted in a
// "+N more" line), with arrows for the `edges` whose ends are both shown. `label` is the picture's
// accessible name and heading line. An empty node list draws a picture that says "no lineage".
std::string RenderLineageSvg(const std::string& label, std::vector<PictureNode> nodes,
                             const std::vector<PictureEdge>& edges, size_t per_column = 6);

}  // namespace dw::desk
