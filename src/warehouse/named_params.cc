#include "warehouse/named_params.h"

#include <cctype>

namespace dw::warehouse {
namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end (exclusive) of the span starting at `i` that must be copied verbatim: a quoted string or
// identifier, a comment, or a dollar-quoted string; `i` itself when none starts there.
size_t VerbatimEnd(const std::string& sql, size_t i) {
  auto to = [&](const std::string& closer, size_t from) {
    size_t end = sql.find(closer, from);
    return end == std::string::npos ? sql.size() : end + closer.size();
  };
  char c = sql[i];
  if (c == '\'' || c == '"') {
    // A doubled quote inside is an escaped quote: keep scanning after it.
    size_t j = i + 1;
    while (j < sql.size()) {
      if (sql[j] == c) {
        if (j + 1 < sql.size() && sql[j + 1] == c) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      ++j;
    }
    return sql.size();
  }
  if (sql.compare(i, 2, "--") == 0) return to("\n", i);
  if (sql.compare(i, 2, "/*") == 0) return to("*/", i + 2);
  if (c == '$') {  // $$...$$ or $tag$...$tag$
    size_t j = i + 1;
    while (j < sql.size() && IsNameChar(sql[j])) ++j;
    if (j < sql.size() && sql[j] == '$' && (j == i + 1 || IsNameStart(sql[i + 1]))) {
      std::string tag = sql.substr(i, j - i + 1);
      return to(tag, j + 1);
    }
  }
  return i;
}

// Walks `sql`, copying what is not a parameter to `text` and handing each :name to `on_name`,
// which returns what to write in its place (or an error, which stops the walk).
template <typename OnName>
Status WalkParameters(const std::string& sql, std::string& text, OnName on_name) {
  for (size_t i = 0; i < sql.size();) {
    size_t verbatim = VerbatimEnd(sql, i);
    if (verbatim > i) {
      text.append(sql, i, verbatim - i);
      i = verbatim;
      continue;
    }
    if (sql[i] == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {
      text += "::";
      i += 2;
      continue;
    }
    if (sql[i] == ':' && i + 1 < sql.size() && IsNameStart(sql[i + 1])) {
      size_t j = i + 1;
      while (j < sql.size() && IsNameChar(sql[j])) ++j;
      Result<std::string> replacement = on_name(sql.substr(i + 1, j - i - 1));
      if (!replacement.ok()) return replacement.status();
      text += *replacement;
      i = j;
      continue;
    }
    text += sql[i++];
  }
  return Status::Ok();
}

}  // namespace

Result<PositionalSql> BindNamedParameters(const std::string& sql,
                                          const std::map<std::string, SqlValue>& values,
                                          const Dialect* dialect) {
  PositionalSql out;
  std::vector<std::string> order;
  Status walked = WalkParameters(sql, out.sql, [&](const std::string& name) -> Result<std::string> {
    size_t pos = 0;
    while (pos < order.size() && order[pos] != name) ++pos;
    if (pos == order.size()) {
      auto it = values.find(name);
      if (it == values.end()) {
        std::string known;
        for (const auto& [k, _] : values) known += (known.empty() ? ":" : ", :") + k;
        return InvalidArgument("parameter :" + name + " has no value (available: " +
                               (known.empty() ? "none" : known) + ")");
      }
      order.push_back(name);
      out.params.push_back(it->second);
    }
    const int n = static_cast<int>(pos + 1);
    return dialect != nullptr ? dialect->Param(n) : "$" + std::to_string(n);
  });
  if (!walked.ok()) return walked;
  return out;
}

bool NamesParameter(const std::string& sql, const std::string& name) {
  bool found = false;
  std::string ignored;
  (void)WalkParameters(sql, ignored, [&](const std::string& n) -> Result<std::string> {
    found = found || n == name;
    return std::string();
  });
  return found;
}

}  // namespace dw::warehouse
