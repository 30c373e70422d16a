// Java stack traces as evidence: the first lines say what failed, the last "Caused by:" says why
// (the root cause sits there, often far below the lines a short excerpt keeps).
#pragma once

#include <string>

namespace dw::platforms {

// The first `head_lines` lines of `trace`, and, when the trace's last "Caused by:" line is not
// among them, "\n...\n" and that line. A trace of at most `head_lines` lines is returned whole.
std::string TraceEvidence(const std::string& trace, int head_lines);

}  // namespace dw::platforms
