// The evidence of a changed source file (a Kestra flow's YAML between two revisions): its unified
// diff, bounded so one event never carries a whole rewritten file.
#pragma once

#include <cstddef>
#include <string>

#include "base/json.h"

namespace dw::observe::changes {

// {"diff": unified diff of `path` from `before` to `after` ("" when equal)} plus, when the diff
// is longer than `max_bytes`, "diff_truncated": true and "diff_bytes" (its full size), the diff
// cut at the last line end within `max_bytes`. Sources too long to compare (more than 4 million
// line pairs) get no diff: "diff" is null and "diff_note" says why.
Json SourceDiffEvidence(const std::string& path, const std::string& before, const std::string& after,
                        size_t max_bytes);

}  // namespace dw::observe::changes
