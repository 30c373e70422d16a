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
    if (c == '{' && i + 1 < s.size() && (s[i + 1] == '%' || s[i + 1] == '#')) {
      const char* close = s[i + 1] == '%' ? "%}" : "#}";
      size_t end = s.find(close, i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      out.push_back({Tok::kPunct, "?"});  // a tag or a comment: control flow, not a name
      continue;
    }
    if (c == '$') {
      // PostgreSQL's dollar quoting: $$ ... $$ or $tag$ ... $tag$ is a string ($1 a parameter).
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      if (j < s.size() && s[j] == '$' && (j == i + 1 || !std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        std::string_view tag = s.substr(i, j + 1 - i);
        size_t end = s.find(tag, j + 1);
        i = end == std::string_view::npos ? s.size() : end + tag.size();
        out.push_back({Tok::kPunct, "'"});
        continue;
      }
    }
    if (c == '\'') {
      // An escape string (E'it\'s') takes backslash escapes; a standard one doubles the quote.
      const bool escapes = !out.empty() && out.back().type == Tok::kWord && i > 0 &&
                           (s[i - 1] == 'E' || s[i - 1] == 'e') &&
                           (out.back().text == "E" || out.back().text == "e");
      if (escapes) out.pop_back();
      ++i;
      while (i < s.size()) {
        if (escapes && s[i] == '\\') { i += 2; continue; }
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
    if (IsIdentStart(c) || (c == '{' && i + 1 < s.size() && s[i + 1] == '{')) {
      // A word, with any {{ expression }} joined to it kept in it as written: a template that
      // stands where a name is (FROM raw.events_{{ day }}) is the name, known only at run time.
      size_t b = i;
      while (i < s.size()) {
        if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') {
          size_t end = s.find("}}", i + 2);
          i = end == std::string_view::npos ? s.size() : end + 2;
          continue;
        }
        if (!IsIdentChar(s[i])) break;
        // "a-b" is a name in BigQuery but "a -b" and "x--" are not: stop before "--".
        if (s[i] == '-' && (i + 1 >= s.size() || s[i + 1] == '-' || !IsIdentChar(s[i + 1]))) break;
        ++i;
      }
      out.push_back({Tok::kWord, std::string(s.substr(b, i - b))});
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
      const std::string before = i_ > 0 ? Word(i_ - 1) : std::string();
      if (w == "FROM" && !parens.empty() && parens.back()) continue;
      // a IS [NOT] DISTINCT FROM b compares values.
      if (w == "FROM" && before == "DISTINCT") continue;
      // MERGE's WHEN ... THEN UPDATE SET / THEN DELETE / THEN INSERT act on the MERGE target; an
      // upsert's ON CONFLICT ... DO UPDATE SET and ON DUPLICATE KEY UPDATE act on the INSERT's;
      // SELECT ... FOR [NO KEY] UPDATE locks rows; ON UPDATE / ON DELETE CASCADE is a foreign key.
      if ((w == "UPDATE" || w == "DELETE" || w == "INSERT") &&
          (before == "THEN" || before == "DO" || before == "KEY" || before == "FOR" || before == "ON"))
        continue;
      if (w == "INSERT" || (w == "REPLACE" && Word(i_ + 1) == "INTO")) {
        size_t j = i_ + 1;
        // INSERT OR REPLACE INTO (SQLite), INSERT IGNORE INTO (MySQL), INSERT OVERWRITE TABLE (Hive).
        while (Word(j) == "INTO" || Word(j) == "OVERWRITE" || Word(j) == "TABLE" || Word(j) == "OR" ||
               Word(j) == "REPLACE" || Word(j) == "IGNORE" || Word(j) == "ROLLBACK" || Word(j) == "ABORT" ||
               Word(j) == "FAIL")
          ++j;
        Take(j, &refs_.writes);
      } else if (w == "COPY") {
        // COPY t FROM ... loads t; COPY t TO ... unloads it; Snowflake's COPY INTO t FROM @stage loads.
        size_t j = i_ + 1;
        if (Word(j) == "INTO") ++j;
        std::vector<std::string> named;
        size_t k = Take(j, &named, /*column_list=*/true);
        if (k < t_.size() && t_[k].text == "(") k = SkipParens(k);
        for (const std::string& n : named) {
          auto* into = Word(k) == "TO" ? &refs_.reads : &refs_.writes;
          if (std::find(into->begin(), into->end(), n) == into->end()) into->push_back(n);
        }
        if (!named.empty()) i_ = k;  // COPY's FROM/TO names a file or STDIN, not a table
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
        j = Take(j, &refs_.writes);
        SkipAlias(&j);
        // DELETE FROM t USING a, b (PostgreSQL): the USING list is read.
        if (Word(j) == "USING") {
          j = Take(j + 1, &refs_.reads);
          for (SkipAlias(&j); j < t_.size() && t_[j].text == ","; SkipAlias(&j)) j = Take(j + 1, &refs_.reads);
        }
        i_ = j - 1;
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
  size_t Take(size_t j, std::vector<std::string>* into, bool column_list = false) {
    // A write target may be followed by its column list: INSERT INTO t (a, b), CREATE TABLE t (..).
    const bool target = column_list || into == &refs_.writes;
    if (j >= t_.size() || t_[j].type == Tok::kPunct) return j;
    if (Word(j) == "ONLY" && j + 1 < t_.size() && t_[j + 1].type != Tok::kPunct) ++j;  // UPDATE ONLY t
    static const std::set<std::string> kNotNames = {"SELECT", "LATERAL", "UNNEST", "VALUES", "WITH",
                                                    "ONLY", "TABLE", "SET", "DEFAULT"};
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

  // The position after the parenthesis group opening at `j`.
  size_t SkipParens(size_t j) const {
    int depth = 0;
    for (; j < t_.size(); ++j) {
      if (t_[j].type != Tok::kPunct) continue;
      if (t_[j].text == "(") ++depth;
      if (t_[j].text == ")" && --depth == 0) return j + 1;
    }
    return j;
  }

  // WITH a AS (...), b (x, y) AS [NOT] MATERIALIZED (...): names that FROM may use but that are
  // not tables.
  void CollectCtes() {
    for (size_t j = 1; j + 2 < t_.size(); ++j) {
      if (t_[j].type == Tok::kPunct) continue;
      if (Word(j - 1) != "WITH" && Word(j - 1) != "RECURSIVE" && t_[j - 1].text != ",") continue;
      size_t k = j + 1;
      if (t_[k].text == "(") k = SkipParens(k);
      if (Word(k) != "AS") continue;
      ++k;
      if (Word(k) == "NOT") ++k;
      if (Word(k) == "MATERIALIZED") ++k;
      if (k < t_.size() && t_[k].text == "(") ctes_.insert(Upper(t_[j].text));
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
