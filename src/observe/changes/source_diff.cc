#include "observe/changes/source_diff.h"

#include <algorithm>

#include "base/unified_diff.h"

namespace dw::observe::changes {

Json SourceDiffEvidence(const std::string& path, const std::string& before, const std::string& after,
                        size_t max_bytes) {
  const size_t lines_before = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const size_t lines_after = static_cast<size_t>(std::count(after.begin(), after.end(), '\n')) + 1;
  if (lines_before * lines_after > size_t{4'000'000})
    return {{"diff", nullptr},
            {"diff_note", "the sources (" + std::to_string(lines_before) + " and " + std::to_string(lines_after) +
                              " lines) are too long to compare here; compare the revisions in Kestra"}};
  std::string diff = MakeUnifiedDiff(path, before, after);
  if (diff.size() <= max_bytes) return {{"diff", diff}};
  const size_t full = diff.size();
  size_t cut = diff.rfind('\n', max_bytes == 0 ? 0 : max_bytes - 1);
  diff.resize(cut == std::string::npos ? 0 : cut + 1);
  return {{"diff", diff}, {"diff_truncated", true}, {"diff_bytes", full}};
}

}  // namespace dw::observe::changes
