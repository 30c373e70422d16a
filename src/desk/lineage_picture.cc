#include "desk/lineage_picture.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/markup_escape.h"

namespace dw::desk {
namespace {

constexpr int kColumnWidth = 290, kBoxWidth = 262, kBoxHeight = 62, kRowHeight = 76, kTop = 58, kLeft = 10;

struct Style {
  const char* fill;
  const char* stroke;
  const char* tag;  // written in the box
};

Style StyleOf(NodeRole role) {
  switch (role) {
    case NodeRole::kSelf: return {"#e8eefc", "#1f3f8f", "THIS ASSET"};
    case NodeRole::kCause: return {"#fff1d6", "#8a5300", "CAUSE"};
    case NodeRole::kDamaged: return {"#fde4e4", "#9b1c1c", "DAMAGED"};
    case NodeRole::kConsumer: return {"#eef6ee", "#25602a", "ACTS ON IT"};
    case NodeRole::kCustomerFacing: return {"#fde4e4", "#9b1c1c", "CUSTOMER-FACING"};
    case NodeRole::kPlain: break;
  }
  return {"#f4f4f4", "#555555", ""};
}

// At most `n` bytes, cut on a UTF-8 character boundary, with an ellipsis when cut.
std::string Clip(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

}  // namespace

std::string RenderLineageSvg(const std::string& label, std::vector<PictureNode> nodes,
                             const std::vector<PictureEdge>& edges, size_t per_column) {
  if (per_column == 0) per_column = 1;
  // Columns, each sorted by priority (then id) and cut to per_column.
  std::map<int, std::vector<PictureNode>> columns;
  for (PictureNode& n : nodes) columns[n.column].push_back(std::move(n));
  std::map<std::string, std::pair<int, int>> placed;  // id -> (x, y) of the box
  std::map<int, size_t> hidden;
  size_t rows = 1;
  int index = 0;
  std::vector<std::pair<PictureNode, std::pair<int, int>>> shown;
  for (auto& [column, list] : columns) {
    std::sort(list.begin(), list.end(), [](const PictureNode& a, const PictureNode& b) {
      return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
    });
    const size_t keep = std::min(list.size(), per_column);
    hidden[column] = list.size() - keep;
    rows = std::max(rows, keep + (hidden[column] > 0 ? 1 : 0));
    for (size_t i = 0; i < keep; ++i) {
      const int x = kLeft + index * kColumnWidth, y = kTop + static_cast<int>(i) * kRowHeight;
      placed[list[i].id] = {x, y};
      shown.push_back({list[i], {x, y}});
    }
    ++index;
  }
  const int width = std::max(kLeft * 2 + std::max(index, 1) * kColumnWidth, 420);
  const int height = kTop + static_cast<int>(rows) * kRowHeight + 10;
  std::string svg;
  svg.reserve(4096 + shown.size() * 600);
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lineage\" role=\"img\" aria-label=\"" +
         EscapeMarkup(label) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
         "\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" + EscapeMarkup(label) + "</title>\n"
         "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
         "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444\"/>"
         "</marker></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
         "<text x=\"" + std::to_string(kLeft) + "\" y=\"22\" font-size=\"14\" font-weight=\"bold\" fill=\"#111\">" +
         EscapeMarkup(Clip(label, 110)) + "</text>\n<text x=\"" + std::to_string(kLeft) +
         "\" y=\"42\" fill=\"#333\">Data flows left to right; each box says what it is.</text>\n";
  if (shown.empty()) {
    svg += "<text x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(kTop + 20) +
           "\" fill=\"#333\">no lineage known for this asset</text>\n</svg>\n";
    return svg;
  }
  std::set<std::pair<std::string, std::string>> drawn;
  for (const PictureEdge& e : edges) {
    auto s = placed.find(e.src), d = placed.find(e.dst);
    if (s == placed.end() || d == placed.end() || !drawn.insert({e.src, e.dst}).second) continue;
    const int x1 = s->second.first + kBoxWidth, y1 = s->second.second + kBoxHeight / 2;
    const int x2 = d->second.first, y2 = d->second.second + kBoxHeight / 2;
    if (x2 <= x1) continue;  // same or earlier column (a cycle): the boxes already say enough
    svg += "<line x1=\"" + std::to_string(x1) + "\" y1=\"" + std::to_string(y1) + "\" x2=\"" +
           std::to_string(x2) + "\" y2=\"" + std::to_string(y2) +
           "\" stroke=\"#444\" stroke-width=\"1.2\" marker-end=\"url(#arrow)\"/>\n";
  }
  for (const auto& [node, at] : shown) {
    const Style st = StyleOf(node.role);
    const std::string x = std::to_string(at.first), y = std::to_string(at.second);
    const bool strong = node.role != NodeRole::kPlain;
    svg += "<g><title>" + EscapeMarkup(node.id + (node.detail.empty() ? "" : " — " + node.detail)) + "</title>";
    svg += "<rect x=\"" + x + "\" y=\"" + y + "\" width=\"" + std::to_string(kBoxWidth) + "\" height=\"" +
           std::to_string(kBoxHeight) + "\" rx=\"5\" fill=\"" + st.fill + "\" stroke=\"" + st.stroke +
           "\" stroke-width=\"" + (strong ? "2" : "1") + "\"/>";
    // Three lines: what the box is (when it is more than a hop on the way), the id, the detail.
    const std::string tx = std::to_string(at.first + 6);
    if (*st.tag)
      svg += "<text x=\"" + tx + "\" y=\"" + std::to_string(at.second + 16) + "\" fill=\"" + st.stroke +
             "\" font-weight=\"bold\" font-size=\"11\">" + st.tag + "</text>";
    svg += "<text x=\"" + tx + "\" y=\"" + std::to_string(at.second + 34) + "\" fill=\"#111\"" +
           (strong ? " font-weight=\"bold\"" : "") + ">" + EscapeMarkup(Clip(node.id, 40)) + "</text>";
    if (!node.detail.empty())
      svg += "<text x=\"" + tx + "\" y=\"" + std::to_string(at.second + 52) + "\" fill=\"#222\">" +
             EscapeMarkup(Clip(node.detail, 44)) + "</text>";
    svg += "</g>\n";
  }
  int column_index = 0;
  for (const auto& [column, count] : hidden) {
    if (count > 0) {
      const size_t shown_here = std::min(columns[column].size(), per_column);
      svg += "<text x=\"" + std::to_string(kLeft + column_index * kColumnWidth + 6) + "\" y=\"" +
             std::to_string(kTop + static_cast<int>(shown_here) * kRowHeight + 16) + "\" fill=\"#333\">+" +
             std::to_string(count) + " more at this depth</text>\n";
    }
    ++column_index;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace dw::desk
