#include "graph/sql_table_refs.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace dw::graph {
namespace {

enum class Tok { kWord, kName, kPunct };
struct Token {
  Tok type;
  std::string text;  // words upper-cased; quoted names unquoted
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '-';
}

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      continue;
    }
    if (c == '{' && i + 1 < s.size() && (s[i + 1] == '{' || s[i + 1] == '%' || s[i + 1] == '#')) {
      const char* close = s[i + 1] == '{' ? "}}" : s[i + 1] == '%' ? "%}" : "#}";
      size_t end = s.find(close, i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      out.push_back({Tok::kPunct, "?"});  // an expression stands where a value or name would be
      continue;
    }
    if (c == '\'') {
      ++i;
      while (i < s.size()) {
        if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') { i += 2; continue; }
        if (s[i] == '\'') break;
        ++i;
      }
      ++i;
      out.push_back({Tok::kPunct, "'"});
      continue;
    }
    if (c == '"' || c == '`' || c == '[') {
      char close = c == '[' ? ']' : c;
      size_t end = s.find(close, i + 1);
      if (end == std::string_view::npos) end = s.size();
      out.push_back({Tok::kName, std::string(s.substr(i + 1, end - i - 1))});
      i = end + 1;
      continue;
    }
    if (IsIdentStart(c)) {
      size_t b = i;
      while (i < s.size() && IsIdentChar(s[i])) {
        // "a-b" is a name in BigQuery but "a -b" and "x--" are not: stop before "--".
        if (s[i] == '-' && (i + 1 >= s.size() || s[i + 1] == '-' || !IsIdentChar(s[i + 1]))) break;
        ++i;
      }
      std::string w(s.substr(b, i - b));
      out.push_back({Tok::kWord, w});
      continue;
    }
    out.push_back({Tok::kPunct, std::string(1, c)});
    ++i;
  }
  return out;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class Scanner {
 public:
  explicit Scanner(std::vector<Token> t) : t_(std::move(t)) {}

  TableRefs Run() {
    CollectCtes();
    // Open parentheses, each true when it belongs to a function whose arguments use FROM as a
    // keyword (EXTRACT(DAY FROM ts), TRIM(x FROM y)).
    std::vector<bool> parens;
    for (i_ = 0; i_ < t_.size(); ++i_) {
      if (t_[i_].text == "(" && t_[i_].type == Tok::kPunct) {
        static const std::set<std::string> kFromFunctions = {"EXTRACT", "SUBSTRING", "SUBSTR", "TRIM",
                                                             "POSITION", "OVERLAY"};
        parens.push_back(i_ > 0 && kFromFunctions.count(Word(i_ - 1)) > 0);
        continue;
      }
      if (t_[i_].text == ")" && t_[i_].type == Tok::kPunct) {
        if (!parens.empty()) parens.pop_back();
        continue;
      }
      std::string w = Word(i_);
      if (w == "FROM" && !parens.empty() && parens.back()) continue;
      // MERGE's WHEN ... THEN UPDATE SET / THEN DELETE / THEN INSERT act on the MERGE target.
      if ((w == "UPDATE" || w == "DELETE" || w == "INSERT") && i_ > 0 && Word(i_ - 1) == "THEN") continue;
      if (w == "INSERT") {
        size_t j = i_ + 1;
        while (Word(j) == "INTO" || Word(j) == "OVERWRITE" || Word(j) == "TABLE") ++j;
        Take(j, &refs_.writes);
      } else if (w == "MERGE") {
        size_t j = i_ + 1;
        if (Word(j) == "INTO") ++j;
        j = Take(j, &refs_.writes);
        SkipAlias(&j);
        if (Word(j) == "USING") Take(j + 1, &refs_.reads);
      } else if (w == "CREATE") {
        size_t j = i_ + 1;
        while (Word(j) == "OR" || Word(j) == "REPLACE" || Word(j) == "TEMP" || Word(j) == "TEMPORARY" ||
               Word(j) == "TRANSIENT" || Word(j) == "MATERIALIZED" || Word(j) == "EXTERNAL")
          ++j;
        if (Word(j) != "TABLE" && Word(j) != "VIEW") continue;
        ++j;
        if (Word(j) == "IF" && Word(j + 1) == "NOT" && Word(j + 2) == "EXISTS") j += 3;
        Take(j, &refs_.writes);
      } else if (w == "UPDATE") {
        Take(i_ + 1, &refs_.writes);
      } else if (w == "DELETE") {
        size_t j = i_ + 1;
        if (Word(j) == "FROM") ++j;
        i_ = Take(j, &refs_.writes) - 1;
      } else if (w == "TRUNCATE") {
        size_t j = i_ + 1;
        if (Word(j) == "TABLE") ++j;
        Take(j, &refs_.writes);
      } else if (w == "FROM" || w == "JOIN") {
        size_t j = Take(i_ + 1, &refs_.reads);
        // FROM a, b, c: a comma list of tables (each with an optional alias).
        while (w == "FROM") {
          SkipAlias(&j);
          if (j >= t_.size() || t_[j].text != ",") break;
          j = Take(j + 1, &refs_.reads);
        }
      }
    }
    return refs_;
  }

 private:
  std::string Word(size_t j) const {
    return j < t_.size() && t_[j].type == Tok::kWord ? Upper(t_[j].text) : std::string();
  }

  // Reads a dotted name at `j` into `into` (unless it is a CTE or a function call); returns the
  // position after it.
  size_t Take(size_t j, std::vector<std::string>* into) {
    // A write target may be followed by its column list: INSERT INTO t (a, b), CREATE TABLE t (..).
    const bool target = into == &refs_.writes;
    if (j >= t_.size() || t_[j].type == Tok::kPunct) return j;
    static const std::set<std::string> kNotNames = {"SELECT", "LATERAL", "UNNEST", "VALUES", "WITH",
                                                    "ONLY", "TABLE"};
    if (t_[j].type == Tok::kWord && kNotNames.count(Upper(t_[j].text))) return j;
    std::string name = t_[j].text;
    size_t k = j + 1;
    while (k + 1 < t_.size() && t_[k].text == "." && t_[k + 1].type != Tok::kPunct) {
      name += "." + t_[k + 1].text;
      k += 2;
    }
    // A quoted `project.dataset.table` is one token holding dots already.
    if (!target && k < t_.size() && t_[k].text == "(") return k;  // a table function
    if (name.find('.') == std::string::npos && ctes_.count(Upper(name))) return k;
    // An empty quoted identifier ("" or ``) names no table, alone or as a part (found by
    // tests/fuzz/, fuzz_sql_table_refs).
    if (name.empty() || name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos) return k;
    if (std::find(into->begin(), into->end(), name) == into->end()) into->push_back(name);
    return k;
  }

  void SkipAlias(size_t* j) const {
    if (Word(*j) == "AS") ++*j;
    static const std::set<std::string> kKeywords = {
        "WHERE", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER", "FULL", "CROSS", "ON", "USING", "GROUP",
        "ORDER", "LIMIT", "UNION", "WHEN", "SET", "HAVING", "WINDOW", "QUALIFY", "EXCEPT", "INTERSECT"};
    if (*j < t_.size() && t_[*j].type != Tok::kPunct && !kKeywords.count(Word(*j))) ++*j;
  }

  // WITH a AS (...), b AS (...): names that FROM may use but that are not tables.
  void CollectCtes() {
    for (size_t j = 0; j + 2 < t_.size(); ++j) {
      if (t_[j].type != Tok::kPunct && Word(j + 1) == "AS" && t_[j + 2].text == "(" &&
          (Word(j - 1) == "WITH" || Word(j - 1) == "RECURSIVE" ||
           (j > 0 && t_[j - 1].text == ",")))
        ctes_.insert(Upper(t_[j].text));
    }
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  std::set<std::string> ctes_;
  TableRefs refs_;
};

}  // namespace

TableRefs ExtractTableRefs(std::string_view sql) { return Scanner(Tokenize(sql)).Run(); }

}  // namespace dw::graph
