#include "sim/snowflake_sql.h"

#include <map>
#include <vector>

#include "sim/sql_text.h"

namespace dw::sim {
namespace {

const std::set<std::string>& Keywords() {
  static const std::set<std::string> k = {
      "SELECT", "FROM",  "WHERE",  "GROUP", "BY",    "HAVING", "ORDER", "LIMIT",     "AS",     "IN",     "NOT",
      "AND",    "OR",    "EXISTS", "ON",    "JOIN",  "USING",  "CASE",  "WHEN",      "THEN",   "ELSE",   "END",
      "IS",     "NULL",  "DISTINCT", "ALL", "UNION", "EXCEPT", "INTERSECT", "ASC",   "DESC",   "BETWEEN", "LIKE",
      "OFFSET", "WITH",  "TRUE",   "FALSE", "INNER", "LEFT",   "RIGHT", "FULL",      "OUTER",  "CROSS",  "NULLS",
      "FIRST",  "LAST",  "ILIKE", "INTO",    "VALUES", "SET",   "INSERT",    "UPDATE", "DELETE", "RECURSIVE"};
  return k;
}

// Snowflake function -> the SQLite function that evaluates it here.
const std::map<std::string, std::string>& Functions() {
  static const std::map<std::string, std::string> f = {
      {"COUNT", "count"},       {"SUM", "sum"},           {"MIN", "min"},
      {"MAX", "max"},           {"AVG", "avg"},           {"COALESCE", "coalesce"},
      {"IFNULL", "ifnull"},     {"NVL", "ifnull"},        {"ABS", "abs"},
      {"LOWER", "lower"},       {"UPPER", "upper"},       {"LENGTH", "length"},
      {"ROUND", "round"},       {"IFF", "iif"},           {"COUNT_IF", "bq_countif"},
      {"TO_TIMESTAMP", "bq_timestamp"},   {"TO_TIMESTAMP_NTZ", "bq_timestamp"},
      {"TO_TIMESTAMP_LTZ", "bq_timestamp"}, {"TO_TIMESTAMP_TZ", "bq_timestamp"},
      {"TO_DATE", "bq_date"},   {"CONVERT_TIMEZONE", "sf_convert_timezone"},
      {"SUBSTR", "substr"},     {"ARRAY_SIZE", "json_array_length"}};
  return f;
}

// Snowflake type -> the type bq_cast converts to (the simulator's storage of it).
const std::map<std::string, std::string>& CastTypes() {
  static const std::map<std::string, std::string> t = {
      {"NUMBER", "INT64"},        {"INTEGER", "INT64"},        {"INT", "INT64"},      {"BIGINT", "INT64"},
      {"FLOAT", "FLOAT64"},       {"DOUBLE", "FLOAT64"},       {"REAL", "FLOAT64"},   {"VARCHAR", "STRING"},
      {"STRING", "STRING"},       {"TEXT", "STRING"},          {"BOOLEAN", "BOOL"},   {"DATE", "DATE"},
      {"TIMESTAMP", "TIMESTAMP"}, {"TIMESTAMP_NTZ", "TIMESTAMP"}, {"TIMESTAMP_LTZ", "TIMESTAMP"},
      {"TIMESTAMP_TZ", "TIMESTAMP"}};
  return t;
}

class Translator {
 public:
  Translator(const std::string& sql, const SnowflakeCatalog& catalog, bool allow_writes)
      : s_(sql), catalog_(catalog), allow_writes_(allow_writes) {}

  SnowflakeTranslation Run() {
    while (i_ < s_.size() && error_.code.empty()) Step();
    if (error_.code.empty() && !saw_first_) Syntax("unexpected end of statement");
    if (!error_.code.empty()) return error_;
    SnowflakeTranslation t;
    t.ok = true;
    t.sql = out_;
    t.statement = statement_;
    t.first_table = first_table_;
    return t;
  }

 private:
  void Fail(const std::string& code, const std::string& state, const std::string& message) {
    if (!error_.code.empty()) return;
    error_.code = code;
    error_.sql_state = state;
    error_.message = message;
  }
  // Snowflake's compilation error: "SQL compilation error:\nsyntax error line L at position P ...".
  void Syntax(const std::string& what) {
    const std::string at = LineColumn(s_, i_);
    const size_t colon = at.find(':');
    Fail("001003", "42000", "SQL compilation error:\nsyntax error line " + at.substr(0, colon) + " at position " +
                                std::to_string(std::stoi(at.substr(colon + 1)) - 1) + " " + what + ".");
  }
  void NotFound(const std::string& kind, const std::string& name) {
    Fail("002003", kind == "Object" ? "42S02" : "02000",
         "SQL compilation error:\n" + kind + " '" + name + "' does not exist or not authorized.");
  }

  char At(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void Step() {
    const char c = s_[i_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      out_ += c;
      ++i_;
    } else if ((c == '-' && At(i_ + 1) == '-') || (c == '/' && At(i_ + 1) == '/')) {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      out_ += ' ';
    } else if (c == '/' && At(i_ + 1) == '*') {
      size_t end = s_.find("*/", i_ + 2);
      if (end == std::string::npos) return Syntax("unexpected end of comment");
      i_ = end + 2;
      out_ += ' ';
    } else if (c == '\'') {
      Literal();
    } else if (c == '$' && At(i_ + 1) == '$') {
      Syntax("unexpected '$$' (dollar-quoted strings are outside the simulator's subset)");
    } else if (c == '"' || IdentStart(c)) {
      Name();
    } else if (c == ':' && At(i_ + 1) == ':') {
      Syntax("unexpected '::' (casts are written CAST(x AS T) in the simulator's subset)");
    } else if (c == ':') {
      Syntax("unexpected ':' (bind variables are '?' in the SQL API)");
    } else if (c == ';') {
      size_t j = i_ + 1;
      while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
      if (j != s_.size()) return Fail("000008", "0A000", "Actual statement count 2 did not match the desired statement count 1.");
      i_ = j;
    } else if (c == '(') {
      ++depth_;
      out_ += c;
      ++i_;
    } else if (c == ')') {
      if (!casts_.empty() && casts_.back().depth == depth_) {
        if (!casts_.back().typed) return Syntax("unexpected ')'");
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

  void Literal() {
    std::string text;
    size_t j = i_ + 1;
    for (; j < s_.size(); ++j) {
      if (s_[j] == '\\') return Syntax("unexpected '\\' (escape sequences are outside the simulator's subset)");
      if (s_[j] == '\'') {
        if (At(j + 1) == '\'') {
          text += '\'';
          ++j;
          continue;
        }
        break;
      }
      text += s_[j];
    }
    if (j >= s_.size()) return Syntax("unexpected end of string literal");
    out_ += SingleQuoted(text);
    i_ = j + 1;
  }

  // One identifier, resolved as Snowflake resolves it: "quoted" exactly, unquoted in upper case.
  bool Part(std::string& name, bool& quoted) {
    if (At(i_) == '"') {
      quoted = true;
      size_t j = i_ + 1;
      for (; j < s_.size(); ++j) {
        if (s_[j] == '"') {
          if (At(j + 1) == '"') {
            name += '"';
            ++j;
            continue;
          }
          break;
        }
        name += s_[j];
      }
      if (j >= s_.size()) {
        Syntax("unexpected end of quoted identifier");
        return false;
      }
      i_ = j + 1;
      return true;
    }
    quoted = false;
    size_t j = i_;
    while (j < s_.size() && (IdentChar(s_[j]) || s_[j] == '$')) ++j;
    name = s_.substr(i_, j - i_);
    i_ = j;
    return true;
  }

  void Name() {
    const size_t start = i_;
    std::vector<std::string> parts;
    bool any_quoted = false;
    for (;;) {
      std::string part;
      bool quoted = false;
      if (!Part(part, quoted)) return;
      any_quoted = any_quoted || quoted;
      parts.push_back(quoted ? part : UpperText(part));
      if (At(i_) == '.' && (At(i_ + 1) == '"' || IdentStart(At(i_ + 1)))) {
        ++i_;
        continue;
      }
      break;
    }
    if (parts.size() == 1 && !any_quoted) return Word(s_.substr(start, i_ - start), start);
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
      if (upper != "SELECT" && upper != "WITH" && !(allow_writes_ && write)) {
        i_ = start;
        return Fail("000002", "0A000", "Unsupported feature: the simulator runs queries (SELECT or WITH) only; got " + upper + ".");
      }
    }
    if (upper == "FILTER") {
      i_ = start;
      return Syntax("unexpected 'FILTER'");
    }
    size_t j = i_;
    while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
    const bool call = At(j) == '(';
    if (!casts_.empty() && casts_.back().depth == depth_ && upper == "AS") return CastType(j);
    if (call && upper == "CAST") {
      out_ += "bq_cast";
      casts_.push_back({depth_ + 1, false});
      return;
    }
    if (call && upper == "DATE_PART") return EpochPart(j, start);
    if (call && !Keywords().count(upper)) {
      auto f = Functions().find(upper);
      if (f == Functions().end()) {
        i_ = start;
        return Fail("002140", "42601", "SQL compilation error:\nUnknown function " + upper);
      }
      out_ += f->second;
      return;
    }
    if (Keywords().count(upper)) {
      out_ += word;
      return;
    }
    out_ += DoubleQuoted(upper);  // a column or an alias, as Snowflake stores an unquoted name
  }

  // CAST(x AS T[(p, s)]): the type becomes bq_cast's second argument.
  void CastType(size_t j) {
    size_t k = j;
    while (k < s_.size() && IdentChar(s_[k])) ++k;
    const std::string type = UpperText(s_.substr(j, k - j));
    auto t = CastTypes().find(type);
    if (t == CastTypes().end()) {
      i_ = j;
      return Syntax("unexpected '" + type + "' (the simulator casts to NUMBER, INTEGER, FLOAT, VARCHAR, BOOLEAN, DATE "
                    "or TIMESTAMP_NTZ/LTZ/TZ)");
    }
    if (At(k) == '(') {  // NUMBER(38, 2), VARCHAR(16): the precision changes nothing here
      const size_t close = s_.find(')', k);
      if (close == std::string::npos) return Syntax("unexpected end of type");
      k = close + 1;
    }
    while (!out_.empty() && std::isspace(static_cast<unsigned char>(out_.back()))) out_.pop_back();
    out_ += ", '" + t->second + "'";
    casts_.back().typed = true;
    i_ = k;
  }

  // DATE_PART(EPOCH_MILLISECOND | EPOCH_SECOND, x): the epoch of x in that unit.
  void EpochPart(size_t open, size_t start) {
    size_t k = open + 1;
    while (k < s_.size() && std::isspace(static_cast<unsigned char>(s_[k]))) ++k;
    size_t e = k;
    while (e < s_.size() && IdentChar(s_[e])) ++e;
    const std::string part = UpperText(s_.substr(k, e - k));
    while (e < s_.size() && std::isspace(static_cast<unsigned char>(s_[e]))) ++e;
    if ((part != "EPOCH_MILLISECOND" && part != "EPOCH_SECOND") || At(e) != ',') {
      i_ = start;
      return Syntax("unexpected '" + part + "' (the simulator's DATE_PART reads EPOCH_MILLISECOND or EPOCH_SECOND)");
    }
    out_ += part == "EPOCH_MILLISECOND" ? "bq_unix_millis(" : "bq_unix_seconds(";
    ++depth_;  // the '(' consumed with the part; its ')' closes as any other
    i_ = e + 1;
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }

  void Path(const std::vector<std::string>& parts) {
    size_t info = parts.size();
    for (size_t k = 0; k < parts.size(); ++k)
      if (parts[k] == "INFORMATION_SCHEMA") info = k;
    if (info < parts.size()) return InformationSchema(parts, info);
    if (parts.size() > 3) return Syntax("unexpected '.'");
    if (parts.size() == 3 && parts[0] == "SNOWFLAKE" && parts[1] == "ACCOUNT_USAGE") {
      if (!catalog_.account_usage ||
          (parts[2] != "QUERY_HISTORY" && parts[2] != "ACCESS_HISTORY" && parts[2] != "QUERY_ATTRIBUTION_HISTORY"))
        return NotFound("Object", "SNOWFLAKE.ACCOUNT_USAGE." + parts[2]);
      out_ += DoubleQuoted("ACCOUNT_USAGE." + parts[2]);
      return;
    }
    if (parts.size() == 3) {
      if (parts[0] != catalog_.database) return NotFound("Database", parts[0]);
      return Table(parts[1], parts[2]);
    }
    // SCHEMA.TABLE in the session's database when the catalog has that schema; else alias.column.
    if (catalog_.schemas.count(parts[0])) return Table(parts[0], parts[1]);
    out_ += DoubleQuoted(parts[0]) + "." + DoubleQuoted(parts[1]);
  }

  void Table(const std::string& schema, const std::string& table) {
    const std::string full = catalog_.database + "." + schema + "." + table;
    if (!catalog_.schemas.count(schema)) return NotFound("Schema", catalog_.database + "." + schema);
    if (!catalog_.tables.count({schema, table})) return NotFound("Object", full);
    if (catalog_.denied_schemas.count(schema))
      return Fail("003001", "42501", "SQL access control error:\nInsufficient privileges to operate on table '" + table + "'");
    if (first_table_.first.empty()) first_table_ = {schema, table};
    out_ += SnowflakeSqliteTable(schema, table);
  }

  void InformationSchema(const std::vector<std::string>& parts, size_t info) {
    if (info + 2 != parts.size() || info > 1)
      return Syntax("unexpected '.' (INFORMATION_SCHEMA.TABLES and .COLUMNS are the simulator's views)");
    if (info == 1 && parts[0] != catalog_.database) return NotFound("Database", parts[0]);
    const std::string& view = parts.back();
    if (view != "TABLES" && view != "COLUMNS") return NotFound("Object", catalog_.database + ".INFORMATION_SCHEMA." + view);
    out_ += DoubleQuoted("INFORMATION_SCHEMA." + view);
  }

  struct Cast {
    int depth;
    bool typed;
  };
  const std::string& s_;
  const SnowflakeCatalog& catalog_;
  const bool allow_writes_;
  std::string statement_;
  std::pair<std::string, std::string> first_table_;
  size_t i_ = 0;
  int depth_ = 0;
  bool saw_first_ = false;
  std::vector<Cast> casts_;
  std::string out_;
  SnowflakeTranslation error_;
};

}  // namespace

std::string SnowflakeSqliteTable(const std::string& schema, const std::string& table) {
  return DoubleQuoted(schema + "." + table);
}

SnowflakeTranslation TranslateSnowflakeSql(const std::string& sql, const SnowflakeCatalog& catalog, bool allow_writes) {
  return Translator(sql, catalog, allow_writes).Run();
}

}  // namespace dw::sim
