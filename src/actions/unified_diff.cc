// Applying unified diffs (made by base/unified_diff.h) with `git apply --check` semantics: every hunk's
// context and removed lines must be found exactly at the line the hunk names, or the patch is a
// conflict (never applied with fuzz, never patched blindly).
#include <cstdio>

#include "actions/actions.h"
#include "base/unified_diff.h"

namespace dw::actions {

Result<std::string> ApplyUnifiedDiff(const std::string& unified, const std::string& current) {
  std::vector<std::string> cur = SplitLinesKeepingEnds(current);
  std::vector<std::string> patch = SplitLinesKeepingEnds(unified);
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

Result<std::string> ReverseUnifiedDiff(const std::string& unified) {
  std::string out, minus, plus;
  bool in_hunk = false;
  for (const std::string& line : SplitLinesKeepingEnds(unified)) {
    if (line.rfind("@@ ", 0) == 0) {
      long a_start = 0, a_len = 0, b_start = 0, b_len = 0;
      int tail = 0;
      if (std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld,%ld @@%n", &a_start, &a_len, &b_start, &b_len, &tail) != 4 ||
          tail == 0)
        return InvalidArgument("malformed hunk header: " + line.substr(0, line.find('\n')));
      if (!in_hunk) out += minus + plus;  // the file header, its two lines swapped
      in_hunk = true;
      out += "@@ -" + std::to_string(b_start) + "," + std::to_string(b_len) + " +" + std::to_string(a_start) + "," +
             std::to_string(a_len) + " @@" + line.substr(static_cast<size_t>(tail));
      continue;
    }
    if (!in_hunk) {
      if (line.rfind("--- ", 0) == 0) plus = "+++ " + line.substr(4);
      else if (line.rfind("+++ ", 0) == 0) minus = "--- " + line.substr(4);
      else return InvalidArgument("malformed diff header line: " + line.substr(0, line.find('\n')));
      continue;
    }
    if (line.empty() || line[0] == ' ' || line[0] == '\\') out += line;
    else if (line[0] == '+') out += "-" + line.substr(1);
    else if (line[0] == '-') out += "+" + line.substr(1);
    else return InvalidArgument("malformed diff line: " + line.substr(0, line.find('\n')));
  }
  if (!in_hunk && !unified.empty()) return InvalidArgument("the diff has no hunk (@@ ... @@)");
  return out;
}

}  // namespace dw::actions
