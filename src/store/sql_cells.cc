#include "store/sql_cells.h"

#include "base/redaction.h"

namespace dw::store {

SqlValue TimeCell(TimePoint t) { return ToUnixMillis(t); }

SqlValue JsonCell(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

SqlValue ProseCell(const std::string& text) { return RedactSecrets(text); }

SqlValue RedactedJsonCell(const Json& j) {
  Json copy = j;
  RedactSecretsIn(copy);
  return JsonCell(copy);
}

const SqlValue* RowReader::Next() {
  if (index_ >= row_.size()) {
    Fail("missing column");
    return nullptr;
  }
  return &row_[index_++];
}

void RowReader::Fail(const std::string& what) {
  if (status_.ok()) {
    status_ = DataLoss(std::string("unexpected value in ") + table_ + " column " +
                       std::to_string(index_) + ": " + what);
  }
}

int64_t RowReader::Int() {
  const SqlValue* v = Next();
  if (v == nullptr) return 0;
  if (const auto* n = std::get_if<int64_t>(v)) return *n;
  Fail("expected an integer");
  return 0;
}

double RowReader::Real() {
  const SqlValue* v = Next();
  if (v == nullptr) return 0;
  if (const auto* d = std::get_if<double>(v)) return *d;
  // SQLite hands back a REAL column holding a whole number as written; accept integers too.
  if (const auto* n = std::get_if<int64_t>(v)) return static_cast<double>(*n);
  Fail("expected a number");
  return 0;
}

std::string RowReader::Text() {
  const SqlValue* v = Next();
  if (v == nullptr) return "";
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  Fail("expected text");
  return "";
}

std::optional<TimePoint> RowReader::OptionalTime() {
  if (index_ < row_.size() && std::holds_alternative<std::monostate>(row_[index_])) {
    ++index_;
    return std::nullopt;
  }
  return Time();
}

Json RowReader::JsonText() {
  std::string text = Text();
  if (!status_.ok()) return nullptr;
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    Fail("not valid JSON");
    return nullptr;
  }
  return j;
}

}  // namespace dw::store
