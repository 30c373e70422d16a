#include "config/suggest.h"

#include <algorithm>
#include <numeric>

namespace dw::config {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best = ClosestName(word, candidates);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::vector<std::string> NearestNames(std::string_view word,
                                      const std::vector<std::string>& candidates, size_t max) {
  std::vector<std::pair<size_t, size_t>> ranked;  // (distance, index)
  for (size_t i = 0; i < candidates.size(); ++i) ranked.emplace_back(EditDistance(word, candidates[i]), i);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < max; ++i) out.push_back(candidates[ranked[i].second]);
  return out;
}

std::string ClosestList(std::string_view word, const std::vector<std::string>& candidates,
                        size_t max) {
  std::vector<std::string> nearest = NearestNames(word, candidates, max);
  if (nearest.empty()) return "";
  std::string out = "; closest: ";
  for (size_t i = 0; i < nearest.size(); ++i) out += (i ? ", " : "") + nearest[i];
  return out;
}

}  // namespace dw::config
