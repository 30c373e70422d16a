#include "platforms/java_trace.h"

#include <vector>

namespace dw::platforms {

std::string TraceEvidence(const std::string& trace, int head_lines) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= trace.size();) {
    size_t nl = trace.find('\n', pos);
    lines.push_back(trace.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  size_t head = head_lines < 0 ? 0 : static_cast<size_t>(head_lines);
  if (lines.size() <= head) return trace;
  std::string out;
  for (size_t i = 0; i < head; ++i) out += (i ? "\n" : "") + lines[i];
  // The last "Caused by:" line (indentation allowed): the innermost cause Java prints.
  for (size_t i = lines.size(); i-- > head;) {
    size_t first = lines[i].find_first_not_of(" \t");
    if (first != std::string::npos && lines[i].compare(first, 10, "Caused by:") == 0)
      return out + "\n...\n" + lines[i].substr(first);
  }
  return out;
}

}  // namespace dw::platforms
