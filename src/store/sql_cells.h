// Converting between record fields and SQL cells: times as Unix milliseconds, JSON as text.
// Decoding is strict: a cell of the wrong type or unparsable JSON is reported as kDataLoss, since
// it can only come from a store edited by something other than Data Workers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "store/sql_connection.h"

namespace dw::store {

// The cell that stores `t`.
SqlValue TimeCell(TimePoint t);
// The cell that stores `j`, as compact JSON text (invalid UTF-8 is replaced, never thrown on).
SqlValue JsonCell(const Json& j);

// The persistence point of redaction (base/redaction.h). Every cell that holds prose or a document
// a person or a platform wrote (a message, an error, a note, a reason, a title, evidence, a body, a
// payload, an answer) is bound through one of these two, so an error that quoted a connection
// string or a registered secret is stored as "***" whichever stage made it. Identifiers, names,
// times and keys are bound as they are: redacting them would change what they identify.
SqlValue ProseCell(const std::string& text);
// JsonCell of `j` with every string value redacted (object keys are the product's own).
SqlValue RedactedJsonCell(const Json& j);

// Reads the cells of one row left to right. Each getter returns a zero value after an error;
// status() reports the first error.
class RowReader {
 public:
  RowReader(const SqlRow& row, const char* table) : row_(row), table_(table) {}

  int64_t Int();
  double Real();
  std::string Text();
  TimePoint Time() { return FromUnixMillis(Int()); }
  std::optional<TimePoint> OptionalTime();
  Json JsonText();

  Status status() const { return status_; }

 private:
  // The next cell, or nullptr (recording an error) when the row is too short.
  const SqlValue* Next();
  void Fail(const std::string& what);

  const SqlRow& row_;
  const char* table_;
  size_t index_ = 0;
  Status status_;
};

}  // namespace dw::store
