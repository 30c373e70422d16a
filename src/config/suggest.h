// "Did you mean ...?" for misspelt keys and names in the workspace file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dw::config {

// Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
size_t EditDistance(std::string_view a, std::string_view b);

// Returns the candidate closest to `word` when it is close enough to be a likely typo (distance
// at most 2, or a third of the word's length), else "". Ties go to the earlier candidate.
std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" when ClosestName finds one, else "".
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace dw::config

namespace dw::config {

// The `max` candidates nearest to `word` by edit distance (nearest first, ties in candidate order),
// whatever the distance: for "not found" messages that list what does exist.
std::vector<std::string> NearestNames(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t max);

// "; closest: a, b, c" from NearestNames (empty when there are no candidates).
std::string ClosestList(std::string_view word, const std::vector<std::string>& candidates,
                        size_t max = 3);

}  // namespace dw::config
