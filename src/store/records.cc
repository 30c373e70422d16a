#include "store/records.h"

namespace dw::store {

const char* CheckStatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kError:
      return "error";
  }
  return "unknown";  // an out-of-range cast; the table's CHECK constraint rejects it
}

std::optional<CheckStatus> ParseCheckStatus(const std::string& name) {
  if (name == "pass") return CheckStatus::kPass;
  if (name == "fail") return CheckStatus::kFail;
  if (name == "error") return CheckStatus::kError;
  return std::nullopt;
}

}  // namespace dw::store
