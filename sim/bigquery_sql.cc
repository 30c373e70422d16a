#include "sim/bigquery_sql.h"

#include <cctype>
#include <map>
#include <regex>
#include <string_view>
#include <vector>

#include "sim/sql_text.h"

namespace dw::sim {
namespace {

const std::set<std::string>& Keywords() {
  static const std::set<std::string> k = {
      "SELECT", "FROM",   "WHERE", "GROUP",  "BY",     "HAVING", "ORDER",   "LIMIT",     "AS",    "IN",
      "NOT",    "AND",    "OR",    "EXISTS", "ON",     "JOIN",   "USING",   "CASE",      "WHEN",  "THEN",
      "ELSE",   "END",    "IS",    "NULL",   "DISTINCT", "ALL",  "UNION",   "EXCEPT",    "INTERSECT",
      "ASC",    "DESC",   "BETWEEN", "LIKE", "OFFSET", "WITH",   "TRUE",    "FALSE",     "INNER", "LEFT",
      "RIGHT",  "FULL",   "OUTER", "CROSS", "SET",    "INTO",   "VALUES"};
  return k;
}

// GoogleSQL function -> the SQLite function that evaluates it here.
const std::map<std::string, std::string>& Functions() {
  static const std::map<std::string, std::string> f = {
      {"COUNT", "count"},   {"SUM", "sum"},       {"MIN", "min"},       {"MAX", "max"},
      {"AVG", "avg"},       {"COALESCE", "coalesce"}, {"IFNULL", "ifnull"}, {"ABS", "abs"},
      {"LOWER", "lower"},   {"UPPER", "upper"},   {"LENGTH", "length"}, {"ROUND", "round"},
      {"COUNTIF", "bq_countif"}, {"UNIX_MILLIS", "bq_unix_millis"}, {"UNIX_SECONDS", "bq_unix_seconds"},
      {"DATE", "bq_date"},  {"DATETIME", "bq_datetime"}, {"TIMESTAMP", "bq_timestamp"},
      {"SUBSTR", "substr"}, {"TO_JSON_STRING", "bq_to_json_string"}, {"MOD", "bq_mod"},
      {"FORMAT", "printf"}, {"TIMESTAMP_SECONDS", "bq_timestamp_seconds"}};
  return f;
}

const std::set<std::string>& CastTypes() {
  static const std::set<std::string> t = {"INT64", "FLOAT64", "STRING", "TIMESTAMP", "DATE", "DATETIME",
                                          "NUMERIC", "BIGNUMERIC", "BOOL"};
  return t;
}

class Translator {
 public:
  Translator(const std::string& sql, const BigQueryCatalog& catalog, bool allow_writes)
      : s_(sql), catalog_(catalog), allow_writes_(allow_writes) {}

  SqlTranslation Run() {
    while (i_ < s_.size() && error_.reason.empty()) Step();
    if (error_.reason.empty() && !saw_first_) Invalid("Syntax error: Unexpected end of statement");
    if (!error_.reason.empty()) return error_;
    SqlTranslation t;
    t.ok = true;
    t.sql = out_;
    t.tables = tables_;
    t.names = names_;
    t.statement = statement_;
    t.first_table = first_table_;
    return t;
  }

 private:
  std::string Where() const { return " at [" + LineColumn(s_, i_) + "]"; }
  void Fail(int status, const std::string& reason, const std::string& message) {
    if (!error_.reason.empty()) return;
    error_.http_status = status;
    error_.reason = reason;
    error_.message = message;
  }
  void Invalid(const std::string& message) { Fail(400, "invalidQuery", message + Where()); }

  char At(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void Step() {
    const char c = s_[i_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      out_ += c;
      ++i_;
    } else if ((c == '-' && At(i_ + 1) == '-') || c == '#') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      out_ += ' ';
    } else if (c == '/' && At(i_ + 1) == '*') {
      size_t end = s_.find("*/", i_ + 2);
      if (end == std::string::npos) return Invalid("Syntax error: Unclosed comment");
      i_ = end + 2;
      out_ += ' ';
    } else if (c == '\'' || c == '"') {
      Literal(c);
    } else if (c == '`' || IdentStart(c)) {
      Name();
    } else if (c == '@') {
      size_t j = i_ + 1;
      while (j < s_.size() && IdentChar(s_[j])) ++j;
      if (j == i_ + 1 || !IdentStart(s_[i_ + 1])) return Invalid("Syntax error: Unexpected \"@\"");
      out_ += s_.substr(i_, j - i_);
      i_ = j;
    } else if (c == '$' || c == '?' || (c == ':' && IdentStart(At(i_ + 1)))) {
      Invalid(std::string("Syntax error: Illegal input character \"") + c + "\"");
    } else if (c == ';') {
      size_t j = i_ + 1;
      while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
      if (j != s_.size()) return Invalid("Syntax error: Expected end of input but got keyword");
      i_ = j;
    } else if (c == '(') {
      ++depth_;
      out_ += c;
      ++i_;
    } else if (c == ')') {
      if (!casts_.empty() && casts_.back().depth == depth_) {
        if (!casts_.back().typed) return Invalid("Syntax error: Expected keyword AS but got \")\"");
        casts_.pop_back();
      }
      --depth_;
      out_ += c;
      ++i_;
    } else {
      out_ += c;
      ++i_;
    }
  }

  // '...' is kept; "..." (a string in GoogleSQL) becomes '...'.
  void Literal(char quote) {
    size_t j = i_ + 1;
    std::string text;
    for (; j < s_.size() && s_[j] != quote; ++j) {
      if (s_[j] == '\\') return Invalid("Syntax error: escape sequences in literals are outside the simulator's subset");
      text += s_[j];
    }
    if (j >= s_.size()) return Invalid("Syntax error: Unclosed string literal");
    out_ += SingleQuoted(text);
    i_ = j + 1;
  }

  // A name or a dotted path of names, backticked or bare.
  void Name() {
    const size_t start = i_;
    std::vector<std::string> parts;
    bool quoted = false;
    for (;;) {
      if (At(i_) == '`') {
        quoted = true;
        std::string text;
        size_t j = i_ + 1;
        for (; j < s_.size() && s_[j] != '`'; ++j) {
          if (s_[j] == '\\' && j + 1 < s_.size()) ++j;  // \` and \\ escape the next character
          text += s_[j];
        }
        if (j >= s_.size()) return Invalid("Syntax error: Unclosed identifier literal");
        i_ = j + 1;
        // `project.dataset.table` in one quote is the same path.
        size_t from = 0;
        for (size_t dot; (dot = text.find('.', from)) != std::string::npos; from = dot + 1)
          parts.push_back(text.substr(from, dot - from));
        parts.push_back(text.substr(from));
      } else {
        size_t j = i_;
        while (j < s_.size() && IdentChar(s_[j])) ++j;
        parts.push_back(s_.substr(i_, j - i_));
        i_ = j;
      }
      if (At(i_) == '.' && (At(i_ + 1) == '`' || IdentStart(At(i_ + 1)))) {
        ++i_;
        continue;
      }
      break;
    }
    if (parts.size() == 1) names_.insert(UpperText(parts[0]));
    if (parts.size() == 1 && !quoted) return Word(parts[0], start);
    if (parts.size() == 1) {
      out_ += DoubleQuoted(parts[0]);
      return;
    }
    Path(parts);
  }

  void Word(const std::string& word, size_t start) {
    const std::string upper = UpperText(word);
    if (!saw_first_) {
      saw_first_ = true;
      statement_ = upper;
      const bool write = upper == "INSERT" || upper == "UPDATE" || upper == "DELETE";
      if (!IEquals(word, "SELECT") && !IEquals(word, "WITH") && !(allow_writes_ && write)) {
        i_ = start;
        return Invalid("the simulator runs queries (SELECT or WITH) only; got " + upper);
      }
    }
    if (IEquals(word, "FILTER")) {
      i_ = start;
      return Invalid("Syntax error: Unexpected keyword FILTER");
    }
    size_t j = i_;
    while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
    const bool call = At(j) == '(';
    if (!casts_.empty() && casts_.back().depth == depth_ && IEquals(word, "AS")) {
      // CAST(x AS T): the type becomes bq_cast's second argument.
      size_t k = j;
      while (k < s_.size() && IdentChar(s_[k])) ++k;
      const std::string type = UpperText(s_.substr(j, k - j));
      if (!CastTypes().count(type)) {
        i_ = j;
        return Invalid("Syntax error: the simulator casts to " + std::string("INT64, FLOAT64, STRING, TIMESTAMP, DATE, "
                       "DATETIME, NUMERIC, BIGNUMERIC or BOOL, not '") + type + "'");
      }
      while (!out_.empty() && std::isspace(static_cast<unsigned char>(out_.back()))) out_.pop_back();
      out_ += ", '" + type + "'";
      casts_.back().typed = true;
      i_ = k;
      return;
    }
    if (call && IEquals(word, "CAST")) {
      out_ += "bq_cast";
      casts_.push_back({depth_ + 1, false});
      return;
    }
    if (call && IEquals(word, "UNNEST")) return Series(j, start);
    if (call && !Keywords().count(upper)) {
      auto f = Functions().find(upper);
      if (f == Functions().end()) {
        i_ = start;
        return Invalid("Function not found: " + word);
      }
      out_ += f->second;
      return;
    }
    out_ += word;
  }

  void Path(std::vector<std::string> parts) {
    size_t info = parts.size();
    for (size_t k = 0; k < parts.size(); ++k)
      if (IEquals(parts[k], "INFORMATION_SCHEMA")) info = k;
    if (info < parts.size()) return InformationSchema(parts, info);
    if (parts.size() > 3) return Invalid("Syntax error: a table path has at most 3 parts");
    std::string project = parts.size() == 3 ? parts[0] : catalog_.project;
    const std::string& dataset = parts[parts.size() - 2];
    const std::string& table = parts.back();
    if (parts.size() == 2 && !catalog_.datasets.count(dataset)) {
      // alias.column (or table.column): SQLite resolves it, and says so when it cannot.
      out_ += DoubleQuoted(dataset) + "." + DoubleQuoted(table);
      names_.insert(UpperText(table));
      return;
    }
    if (project != catalog_.project) return Fail(404, "notFound", "Not found: Project " + project);
    if (!catalog_.datasets.count(dataset))
      return Fail(404, "notFound", "Not found: Dataset " + project + ":" + dataset + " was not found in location " +
                                       catalog_.location);
    if (!catalog_.tables.count({dataset, table}))
      return Fail(404, "notFound", "Not found: Table " + project + ":" + dataset + "." + table +
                                       " was not found in location " + catalog_.location);
    if (catalog_.denied_datasets.count(dataset))
      return Fail(403, "accessDenied", "Access Denied: Table " + project + ":" + dataset + "." + table +
                                           ": User does not have permission to query table " + project + ":" +
                                           dataset + "." + table + ", or perhaps it does not exist.");
    tables_.insert({dataset, table});
    if (first_table_.first.empty()) first_table_ = {dataset, table};
    out_ += SqliteTableName(dataset, table);
  }

  // UNNEST(GENERATE_ARRAY(a, b)) [AS] x, from the '(' at `open`: the integers a..b as a subquery
  // whose one column is x, as GoogleSQL names an unnested value by its alias.
  void Series(size_t open, size_t start) {
    static const std::regex kSeries(R"(^\(\s*GENERATE_ARRAY\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*\)\s*(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*))",
                                    std::regex::icase);
    std::smatch m;
    const std::string rest = s_.substr(open);
    if (!std::regex_search(rest, m, kSeries) || Keywords().count(UpperText(m[3].str()))) {
      i_ = start;
      return Invalid("the simulator unnests GENERATE_ARRAY(a, b) of two integers, with an alias, only");
    }
    const std::string alias = DoubleQuoted(m[3].str());
    out_ += "(WITH RECURSIVE bq_series(v) AS (SELECT " + m[1].str() + " UNION ALL SELECT v + 1 FROM bq_series WHERE v < " +
            m[2].str() + ") SELECT v AS " + alias + " FROM bq_series) AS " + alias;
    names_.insert(UpperText(m[3].str()));
    i_ = open + static_cast<size_t>(m.length(0));
  }

  void InformationSchema(const std::vector<std::string>& parts, size_t info) {
    if (info + 2 != parts.size()) return Invalid("INFORMATION_SCHEMA views other than TABLES and COLUMNS are outside the simulator's subset");
    const std::string view = UpperText(parts.back());
    if (!IEquals(view, "TABLES") && !IEquals(view, "COLUMNS") && !IEquals(view, "JOBS"))
      return Invalid("INFORMATION_SCHEMA." + view + " is outside the simulator's subset (TABLES, COLUMNS, JOBS)");
    if (info == 0) return Invalid("Table \"INFORMATION_SCHEMA." + view + "\" must be qualified with a dataset (e.g. dataset.table)");
    if (info > 2) return Invalid("Syntax error: too many qualifiers before INFORMATION_SCHEMA");
    if (info == 2 && parts[0] != catalog_.project) return Fail(404, "notFound", "Not found: Project " + parts[0]);
    const std::string& scope = parts[info - 1];
    if (IEquals(view, "JOBS") && scope.rfind("region-", 0) != 0)
      return Invalid("INFORMATION_SCHEMA.JOBS must be qualified with a region (`region-us`.INFORMATION_SCHEMA.JOBS)");
    const std::string sqlite_view = DoubleQuoted("INFORMATION_SCHEMA." + view);
    if (scope.rfind("region-", 0) == 0) {
      out_ += sqlite_view;
      return;
    }
    if (!catalog_.datasets.count(scope))
      return Fail(404, "notFound", "Not found: Dataset " + catalog_.project + ":" + scope + " was not found in location " +
                                       catalog_.location);
    out_ += "(SELECT * FROM " + sqlite_view + " WHERE table_schema = " + SingleQuoted(scope) + ")";
  }

  struct Cast {
    int depth;
    bool typed;
  };
  const std::string& s_;
  const BigQueryCatalog& catalog_;
  size_t i_ = 0;
  int depth_ = 0;
  bool saw_first_ = false;
  const bool allow_writes_;
  std::string statement_;
  std::pair<std::string, std::string> first_table_;
  std::vector<Cast> casts_;
  std::string out_;
  std::set<std::pair<std::string, std::string>> tables_;
  std::set<std::string> names_;
  SqlTranslation error_;
};

}  // namespace

std::string SqliteTableName(const std::string& dataset, const std::string& table) {
  return DoubleQuoted(dataset + "." + table);
}

SqlTranslation TranslateGoogleSql(const std::string& sql, const BigQueryCatalog& catalog, bool allow_writes) {
  return Translator(sql, catalog, allow_writes).Run();
}

}  // namespace dw::sim
