#include "observe/quality/check_outcome.h"

namespace dw::observe::quality {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kError: return "error";
    case Verdict::kSkipped: return "skipped";
    case Verdict::kWarn: return "warn";
  }
  return "error";
}

Json CheckOutcome::ToJson() const {
  Json j = {{"name", name},         {"type", type},
            {"status", VerdictName(verdict)},
            {"observed", observed}, {"threshold", threshold},
            {"message", message},   {"duration_ms", duration_ms}};
  j["rows_scanned"] = rows_scanned ? Json(*rows_scanned) : Json();
  if (sample) j["sample"] = *sample;
  if (failing_rows_query) j["failing_rows_query"] = *failing_rows_query;
  return j;
}

CheckOutcome Skipped(std::string name, std::string type, std::string reason) {
  CheckOutcome o;
  o.name = std::move(name);
  o.type = std::move(type);
  o.verdict = Verdict::kSkipped;
  o.message = std::move(reason);
  return o;
}

CheckOutcome Errored(std::string name, std::string type, std::string message) {
  CheckOutcome o;
  o.name = std::move(name);
  o.type = std::move(type);
  o.verdict = Verdict::kError;
  o.message = std::move(message);
  return o;
}

std::string WhatToDo(const Status& status) {
  // Each says that nothing was judged: a gap in what is known, never a verdict on the data.
  switch (status.code()) {
    case StatusCode::kNotFound:
      return "; what to do: the table (or a column the check names) is not in the warehouse, dropped or renamed, "
             "perhaps while the checks ran: restore it, or point the workspace's checks at its new name; the data "
             "was not judged";
    case StatusCode::kPermissionDenied:
      return "; what to do: grant the warehouse user Data Workers signs in as read access to the table, then run "
             "the checks again; the data was not judged";
    case StatusCode::kResourceExhausted:
      return "; what to do: the warehouse refused the scan for what it would cost (a quota, a resource monitor or "
             "the byte cap): wait for the quota to reset or raise it, raise max_bytes_billed, or check only new "
             "rows (a time_column, `since`); the data was not judged";
    case StatusCode::kDataLoss:
      return "; what to do: the warehouse answered in an encoding Data Workers does not read (the message names "
             "the column and type): cast the column in a view the checks read, and report it; the data was not "
             "judged";
    case StatusCode::kDeadlineExceeded:
      return "; what to do: the scan ran past the warehouse's query_timeout: raise it, or check only new rows (a "
             "time_column, `since`); the data was not judged";
    default:
      return "";
  }
}

CheckOutcome Unobserved(std::string name, std::string type, const Status& status) {
  return Errored(std::move(name), std::move(type), status.message() + WhatToDo(status));
}

}  // namespace dw::observe::quality
