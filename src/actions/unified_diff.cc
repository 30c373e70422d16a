// Unified diffs of real files, and applying them with `git apply --check` semantics: every hunk's
// context and removed lines must be found exactly at the line the hunk names, or the patch is a
// conflict (never applied with fuzz, never patched blindly).
#include <algorithm>
#include <sstream>

#include "actions/actions.h"

namespace dw::actions {
namespace {

constexpr int kContext = 3;

// Lines with their terminator; a last line without '\n' keeps none.
std::vector<std::string> Lines(const std::string& text) {
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
  std::vector<std::string> a = Lines(before), b = Lines(after);
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

Result<std::string> ApplyUnifiedDiff(const std::string& unified, const std::string& current) {
  std::vector<std::string> cur = Lines(current);
  std::vector<std::string> patch = Lines(unified);
  std::string out;
  size_t at = 0;  // next line of `cur` not yet copied
  size_t p = 0;
  while (p < patch.size() && patch[p].rfind("@@ ", 0) != 0) ++p;  // skip the file header
  if (p == patch.size() && !unified.empty())
    return InvalidArgument("the diff has no hunk (@@ ... @@)");
  while (p < patch.size()) {
    long a_start = 0, a_len = 0, b_start = 0, b_len = 0;
    if (std::sscanf(patch[p].c_str(), "@@ -%ld,%ld +%ld,%ld @@", &a_start, &a_len, &b_start,
                    &b_len) != 4)
      return InvalidArgument("malformed hunk header: " + patch[p]);
    size_t first = static_cast<size_t>(a_len == 0 ? a_start : a_start - 1);
    if (first < at || first > cur.size())
      return FailedPrecondition("conflict: hunk at line " + std::to_string(a_start) +
                                " is outside the file (" + std::to_string(cur.size()) + " lines)");
    for (; at < first; ++at) out += cur[at];
    ++p;
    for (; p < patch.size() && patch[p].rfind("@@ ", 0) != 0; ++p) {
      const std::string& line = patch[p];
      if (line.empty() || line[0] == '\\') continue;
      std::string text = line.substr(1);
      bool no_newline = p + 1 < patch.size() && patch[p + 1].rfind("\\ ", 0) == 0;
      if (no_newline && !text.empty() && text.back() == '\n') text.pop_back();
      if (line[0] == '+') {
        out += text;
        continue;
      }
      if (line[0] != ' ' && line[0] != '-') return InvalidArgument("malformed diff line: " + line);
      if (at >= cur.size() || cur[at] != text)
        return FailedPrecondition(
            "conflict: line " + std::to_string(at + 1) + " of the file is '" +
            (at < cur.size() ? cur[at].substr(0, cur[at].find('\n')) : std::string("(end of file)")) +
            "', the diff expects '" + text.substr(0, text.find('\n')) +
            "': the file changed since the diff was drafted");
      if (line[0] == ' ') out += cur[at];
      ++at;
    }
  }
  for (; at < cur.size(); ++at) out += cur[at];
  return out;
}

}  // namespace dw::actions
