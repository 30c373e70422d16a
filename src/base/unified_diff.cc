#include "base/unified_diff.h"

#include <algorithm>
#include <cstdint>

namespace dw {
namespace {

constexpr int kContext = 3;

}  // namespace

std::vector<std::string> SplitLinesKeepingEnds(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  return out;
}

namespace {

void AppendLine(char tag, const std::string& line, std::string& out) {
  out.push_back(tag);
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

struct Op {
  char tag;  // ' ', '-', '+'
  size_t a, b;  // indexes into before / after (the one that applies)
};

// An edit script by longest common subsequence (the files are manifests and flows: small).
std::vector<Op> Script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Op> ops;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', i++, j});  // removals before additions, as diff and git print them
    } else {
      ops.push_back({'+', i, j++});
    }
  }
  return ops;
}

}  // namespace

std::string MakeUnifiedDiff(const std::string& path, const std::string& before,
                            const std::string& after) {
  std::vector<std::string> a = SplitLinesKeepingEnds(before), b = SplitLinesKeepingEnds(after);
  std::vector<Op> ops = Script(a, b);
  std::string out;
  size_t k = 0;
  while (k < ops.size()) {
    // Find the next change, then grow the hunk while changes are within 2*context lines.
    while (k < ops.size() && ops[k].tag == ' ') ++k;
    if (k == ops.size()) break;
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;  // one past the last change of the hunk
    for (size_t q = k; q < ops.size(); ++q) {
      if (ops[q].tag != ' ') end = q + 1;
      else if (q - end + 1 > 2 * kContext) break;
    }
    size_t stop = std::min(ops.size(), end + kContext);
    size_t a_start = ops[start].a, b_start = ops[start].b, a_len = 0, b_len = 0;
    std::string body;
    for (size_t q = start; q < stop; ++q) {
      const Op& op = ops[q];
      if (op.tag != '+') ++a_len;
      if (op.tag != '-') ++b_len;
      AppendLine(op.tag, op.tag == '+' ? b[op.b] : a[op.a], body);
    }
    // Unified diff line numbers are 1-based; an empty range names the line before it.
    auto range = [](size_t s, size_t len) {
      return std::to_string(len == 0 ? s : s + 1) + "," + std::to_string(len);
    };
    out += "@@ -" + range(a_start, a_len) + " +" + range(b_start, b_len) + " @@\n" + body;
    k = stop;
  }
  if (out.empty()) return "";
  return "--- a/" + path + "\n+++ b/" + path + "\n" + out;
}

}  // namespace dw
