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

}  // namespace dw::observe::quality
