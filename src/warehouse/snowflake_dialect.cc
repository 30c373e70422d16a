// Snowflake's dialect: double-quoted identifiers, tables as "DATABASE"."SCHEMA"."TABLE", positional
// bind variables, native DATE and TIMESTAMP_* read as epoch milliseconds, and COUNT_IF for a
// counted condition.
//
// Names are folded as Snowflake folds an unquoted identifier. A workspace says `shop.orders` and
// `not_null: [customer]` as a person types them in a worksheet, and Snowflake stores those as
// SHOP, ORDERS and CUSTOMER; quoting the name as written would address objects that do not exist.
// So a plain identifier (letters, digits, _ and $, not starting with a digit) is quoted in upper
// case, unless the catalog has shown this warehouse an object or column of exactly that
// spelling (created quoted, "customerId"), which is then quoted as it is. Any other name (spaces,
// dots, quotes) is quoted exactly: it can only be a quoted identifier.
#include "warehouse/snowflake_warehouse.h"

#include <cctype>
#include <mutex>
#include <set>

namespace dw::warehouse {
namespace {

bool PlainIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$') return false;
  return true;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

class SnowflakeDialectImpl final : public SnowflakeDialect {
 public:
  SnowflakeDialectImpl(std::string database, std::string schema)
      : database_(std::move(database)), schema_(std::move(schema)) {}

  std::string_view name() const override { return "snowflake"; }

  std::string Quote(std::string_view name) const override { return Dialect::Quote(CatalogName(name)); }

  TableId TableOf(const std::string& schema, const std::string& table) const override {
    return {CatalogName(schema.empty() ? schema_ : schema), CatalogName(table)};
  }
  std::string Table(const TableId& table) const override {
    std::string out = database_.empty() ? "" : Dialect::Quote(CatalogName(database_)) + ".";
    if (!table.schema.empty()) out += Dialect::Quote(table.schema) + ".";
    return out + Dialect::Quote(table.table);
  }
  // The dialect numbers its parameters; the client turns each :N into the SQL API's positional
  // `?` in the order they appear, so one value may be used twice (snowflake_warehouse.cc).
  std::string Param(int n) const override { return ":" + std::to_string(n); }
  std::string CountWhere(const std::string& condition) const override { return "count_if(" + condition + ")"; }

  // DATE_PART's epoch parts read DATE (midnight), TIMESTAMP_NTZ (as UTC) and the instant of
  // TIMESTAMP_LTZ and TIMESTAMP_TZ alike.
  std::string MaxTime(const std::string& quoted_column, TimeEncoding encoding) const override {
    if (encoding == TimeEncoding::kNative) return "date_part(epoch_millisecond, max(" + quoted_column + "))";
    return "max(" + quoted_column + ")";
  }
  // A native parameter is RFC 3339 text in UTC, converted to the column's own type so that
  // pruning on the column works: TIMESTAMP_TZ keeps the instant, NTZ takes UTC's wall time.
  std::string TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const override {
    if (encoding != TimeEncoding::kNative) return Param(n);
    if (column_type == "date") return "to_date(to_timestamp_tz(" + Param(n) + "))";
    if (column_type == "timestamp_ntz") return "to_timestamp_ntz(convert_timezone('UTC', to_timestamp_tz(" + Param(n) + ")))";
    if (column_type == "timestamp_ltz") return "to_timestamp_ltz(to_timestamp_tz(" + Param(n) + "))";
    return "to_timestamp_tz(" + Param(n) + ")";
  }
  bool IsNativeTimeType(const std::string& type) const override {
    return type == "date" || type == "timestamp_ntz" || type == "timestamp_ltz" || type == "timestamp_tz";
  }
  bool EnforcesColumnTypes() const override { return true; }
  std::string_view RowIdColumn() const override { return ""; }
  std::string ReadGrant(const TableId& table) const override {
    return "GRANT USAGE ON the database, the schema " + table.schema + " and the warehouse, and GRANT SELECT ON TABLE " +
           Table(table) + ", TO ROLE <the role of the warehouse's user>";
  }

  void LearnCatalogName(const std::string& name) const override {
    if (PlainIdentifier(name) && Upper(name) == name) return;  // the fold of itself: nothing to learn
    std::lock_guard<std::mutex> lock(mu_);
    exact_.insert(name);
  }

 private:
  std::string CatalogName(std::string_view name) const {
    if (!PlainIdentifier(name)) return std::string(name);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (exact_.count(std::string(name))) return std::string(name);
    }
    return Upper(name);
  }

  std::string database_, schema_;
  mutable std::mutex mu_;
  mutable std::set<std::string> exact_;
};

}  // namespace

std::unique_ptr<SnowflakeDialect> MakeSnowflakeDialect(const std::string& database, const std::string& schema) {
  return std::make_unique<SnowflakeDialectImpl>(database, schema);
}

const Dialect& SnowflakeRegistryDialect() {
  static const SnowflakeDialectImpl kDialect("", "PUBLIC");
  return kDialect;
}

}  // namespace dw::warehouse
