// Text helpers shared by the simulators' SQL translators (bigquery_sql.cc, snowflake_sql.cc).
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace dw::sim {

inline std::string UpperText(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Case-insensitive equality of keywords and names, without a temporary (GCC 12 warns wrongly,
// stringop-overread, on comparing an uppercased copy).
inline bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

inline bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// SQLite's quoted identifier and string literal of `text`.
inline std::string DoubleQuoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
inline std::string SingleQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// " at [line:column]" of offset `i` in `s`, as both services place a syntax error.
inline std::string LineColumn(const std::string& s, size_t i) {
  int line = 1, col = 1;
  for (size_t k = 0; k < i && k < s.size(); ++k) {
    if (s[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// The statements of a world script, split at the semicolons outside literals, quoted names and
// `--` comments; blank ones dropped (a replay's writes, sent to /_sim/exec).
inline std::vector<std::string> SplitSqlStatements(const std::string& text) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      const size_t end = text.find(c, i + 1);
      const size_t stop = end == std::string::npos ? text.size() : end + 1;
      out.back().append(text, i, stop - i);
      i = stop - 1;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {
      const size_t end = text.find('\n', i);
      i = (end == std::string::npos ? text.size() : end) - 1;
    } else if (c == ';') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  std::vector<std::string> statements;
  for (const std::string& st : out)
    if (st.find_first_not_of(" \t\r\n") != std::string::npos) statements.push_back(st);
  return statements;
}

}  // namespace dw::sim
