// Editing a FlinkDeployment manifest's text to redeploy from a savepoint, keeping every other
// line as the team wrote it (so the diff a person reviews shows only what changes).
#include <string_view>
#include <vector>

#include "actions/actions.h"

namespace dw::actions {
namespace {

struct Line {
  std::string text;  // without '\n'
};

size_t Indent(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

bool Blank(const std::string& s) {
  size_t i = Indent(s);
  return i == s.size() || s[i] == '#';
}

// The key of a "key: value" or "key:" line at its indent, or "".
std::string KeyOf(const std::string& s) {
  size_t i = Indent(s);
  size_t colon = s.find(':', i);
  if (colon == std::string::npos) return "";
  if (colon + 1 < s.size() && s[colon + 1] != ' ') return "";
  return s.substr(i, colon - i);
}

std::string ValueOf(const std::string& s) {
  size_t colon = s.find(':', Indent(s));
  if (colon == std::string::npos) return "";
  std::string v = s.substr(colon + 1);
  size_t hash = v.find(" #");
  if (hash != std::string::npos) v = v.substr(0, hash);
  size_t b = v.find_first_not_of(' '), e = v.find_last_not_of(' ');
  if (b == std::string::npos) return "";
  v = v.substr(b, e - b + 1);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return v;
}

std::string Quoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

// The end (exclusive) of the block of children of line `at` whose indent is `indent`.
size_t BlockEnd(const std::vector<std::string>& lines, size_t at, size_t end, size_t indent) {
  size_t last = at;
  for (size_t i = at + 1; i < end; ++i) {
    if (Blank(lines[i])) continue;
    if (Indent(lines[i]) <= indent) break;
    last = i;
  }
  return last + 1;
}

// The first line in [from, to) at `indent` with key `key`, or `to`.
size_t FindKey(const std::vector<std::string>& lines, size_t from, size_t to, size_t indent,
               const std::string& key) {
  for (size_t i = from; i < to; ++i)
    if (!Blank(lines[i]) && Indent(lines[i]) == indent && KeyOf(lines[i]) == key) return i;
  return to;
}

}  // namespace

Result<std::string> RedeployFromSavepoint(const std::string& manifest, const std::string& name,
                                          const std::string& savepoint_path, int64_t nonce) {
  if (savepoint_path.empty())
    return InvalidArgument("no savepoint path to redeploy from (the last good savepoint is not recorded)");
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= manifest.size()) {
    size_t nl = manifest.find('\n', start);
    if (nl == std::string::npos) {
      if (start < manifest.size()) lines.push_back(manifest.substr(start));
      break;
    }
    lines.push_back(manifest.substr(start, nl - start));
    start = nl + 1;
  }
  const bool trailing_newline = !manifest.empty() && manifest.back() == '\n';
  // Documents are separated by "---" lines.
  size_t doc = 0;
  while (doc < lines.size()) {
    size_t doc_end = doc;
    while (doc_end < lines.size() && !(doc_end > doc && lines[doc_end].rfind("---", 0) == 0))
      ++doc_end;
    size_t kind = FindKey(lines, doc, doc_end, 0, "kind");
    size_t meta = FindKey(lines, doc, doc_end, 0, "metadata");
    bool match = kind < doc_end && ValueOf(lines[kind]) == "FlinkDeployment" && meta < doc_end;
    if (match) {
      size_t meta_end = BlockEnd(lines, meta, doc_end, 0);
      size_t child = meta + 1 < meta_end ? Indent(lines[meta + 1]) : 2;
      size_t n = FindKey(lines, meta + 1, meta_end, child, "name");
      match = n < meta_end && ValueOf(lines[n]) == name;
    }
    if (!match) {
      doc = doc_end;
      continue;
    }
    size_t spec = FindKey(lines, doc, doc_end, 0, "spec");
    if (spec == doc_end) return NotFound("FlinkDeployment " + name + " has no spec");
    size_t spec_end = BlockEnd(lines, spec, doc_end, 0);
    size_t spec_child = 0;
    for (size_t i = spec + 1; i < spec_end; ++i)
      if (!Blank(lines[i])) {
        spec_child = Indent(lines[i]);
        break;
      }
    size_t job = FindKey(lines, spec + 1, spec_end, spec_child, "job");
    if (spec_child == 0 || job == spec_end)
      return NotFound("FlinkDeployment " + name + " has no spec.job block to redeploy");
    size_t job_end = BlockEnd(lines, job, spec_end, spec_child);
    size_t job_child = spec_child * 2;
    for (size_t i = job + 1; i < job_end; ++i)
      if (!Blank(lines[i])) {
        job_child = Indent(lines[i]);
        break;
      }
    const std::string pad(job_child, ' ');
    const std::pair<std::string, std::string> settings[] = {
        {"initialSavepointPath", Quoted(savepoint_path)},
        {"savepointRedeployNonce", std::to_string(nonce)},
        {"allowNonRestoredState", "false"},
    };
    for (const auto& [key, value] : settings) {
      size_t at = FindKey(lines, job + 1, job_end, job_child, key);
      std::string line = pad + key + ": " + value;
      if (at < job_end) {
        lines[at] = line;
      } else {
        lines.insert(lines.begin() + static_cast<long>(job_end), line);
        ++job_end;
      }
    }
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      out += lines[i];
      if (i + 1 < lines.size() || trailing_newline) out += "\n";
    }
    return out;
  }
  return NotFound("the manifest holds no FlinkDeployment named " + name);
}

}  // namespace dw::actions
