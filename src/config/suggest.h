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
