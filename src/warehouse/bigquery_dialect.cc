// BigQuery's dialect (GoogleSQL): backtick-quoted names, tables as `project`.`dataset`.`table`,
// named parameters (@p1), native TIMESTAMP, DATETIME and DATE read as epoch milliseconds, and
// countif for a counted condition. The project is the warehouse's own (config `project`), so the
// dialect object is per warehouse; the registry's shared one has none and names tables by
// dataset alone (which BigQuery resolves against the job's project).
#include "warehouse/bigquery_warehouse.h"

namespace dw::warehouse {
namespace {

class BigQueryDialectImpl final : public Dialect {
 public:
  explicit BigQueryDialectImpl(std::string project) : project_(std::move(project)) {}

  std::string_view name() const override { return "bigquery"; }

  // GoogleSQL's quoted identifiers take backslash escapes: a backtick or backslash in a name is
  // escaped, so every name the catalog holds is addressed exactly and cannot end the quote.
  std::string Quote(std::string_view name) const override {
    std::string out = "`";
    for (char c : name) {
      if (c == '`' || c == '\\') out += '\\';
      out += c;
    }
    return out + "`";
  }
  TableId TableOf(const std::string& schema, const std::string& table) const override {
    return {schema, table};
  }
  std::string Table(const TableId& table) const override {
    std::string out = project_.empty() ? "" : Quote(project_) + ".";
    if (!table.schema.empty()) out += Quote(table.schema) + ".";
    return out + Quote(table.table);
  }
  std::string Param(int n) const override { return "@p" + std::to_string(n); }
  std::string CountWhere(const std::string& condition) const override {
    return "countif(" + condition + ")";
  }
  // CAST to TIMESTAMP reads DATE (midnight UTC), DATETIME (as UTC) and TIMESTAMP alike.
  std::string MaxTime(const std::string& quoted_column, TimeEncoding encoding) const override {
    if (encoding == TimeEncoding::kNative) return "UNIX_MILLIS(CAST(max(" + quoted_column + ") AS TIMESTAMP))";
    return "max(" + quoted_column + ")";
  }
  // A native parameter is RFC 3339 text in UTC; it is cast to the column's own type so the
  // comparison (and partition pruning on it) works on the column as stored.
  std::string TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const override {
    if (encoding != TimeEncoding::kNative) return Param(n);
    const std::string ts = "CAST(" + Param(n) + " AS TIMESTAMP)";
    if (column_type == "date") return "DATE(" + ts + ")";
    if (column_type == "datetime") return "DATETIME(" + ts + ")";
    return ts;
  }
  bool IsNativeTimeType(const std::string& type) const override {
    return type == "timestamp" || type == "datetime" || type == "date";
  }
  bool EnforcesColumnTypes() const override { return true; }
  std::string_view RowIdColumn() const override { return ""; }
  std::string ReadGrant(const TableId& table) const override {
    return "roles/bigquery.dataViewer on dataset " + table.schema +
           " and roles/bigquery.jobUser on the project, for the service account of the key file";
  }

 private:
  std::string project_;
};

}  // namespace

std::unique_ptr<Dialect> MakeBigQueryDialect(const std::string& project) {
  return std::make_unique<BigQueryDialectImpl>(project);
}

const Dialect& BigQueryDialect() {
  static const BigQueryDialectImpl kDialect("");
  return kDialect;
}

}  // namespace dw::warehouse
