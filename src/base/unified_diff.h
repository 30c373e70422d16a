// Unified diffs of text (manifests, flows): what changed between two versions of one file, in
// the form people read in review and `git apply` takes.
#pragma once

#include <string>
#include <vector>

namespace dw {

// The lines of `text` with their terminator; a last line without '\n' keeps none.
std::vector<std::string> SplitLinesKeepingEnds(const std::string& text);

// A unified diff from `before` to `after` of the file `path` (3 lines of context, headers
// "--- a/PATH" / "+++ b/PATH", "\ No newline at end of file" where it applies); "" when equal.
// Time and memory grow with the product of the two line counts: callers bound their inputs.
std::string MakeUnifiedDiff(const std::string& path, const std::string& before, const std::string& after);

}  // namespace dw
