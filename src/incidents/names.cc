// The stable names of the stage's enums (stored in incident bodies and shown by every surface).
#include "incidents/incidents.h"

namespace dw::incidents {

const char* SignalKindName(SignalKind kind) {
  switch (kind) {
    case SignalKind::kMetric: return "metric";
    case SignalKind::kCheck: return "check";
    case SignalKind::kChange: return "change";
  }
  return "metric";
}

const char* SignalShapeName(SignalShape shape) {
  switch (shape) {
    case SignalShape::kUnknown: return "unknown";
    case SignalShape::kLevelDrop: return "level_drop";
    case SignalShape::kLevelRise: return "level_rise";
    case SignalShape::kDoubling: return "doubling";
    case SignalShape::kRepeatsEarlier: return "repeats_earlier";
    case SignalShape::kNullRateJump: return "null_rate_jump";
    case SignalShape::kMismatchesFound: return "mismatches_found";
    case SignalShape::kStateDropped: return "state_dropped";
  }
  return "unknown";
}

const char* IncidentStatusName(IncidentStatus status) {
  switch (status) {
    case IncidentStatus::kOpen: return "open";
    case IncidentStatus::kAcknowledged: return "acknowledged";
    case IncidentStatus::kMitigated: return "mitigated";
    case IncidentStatus::kResolved: return "resolved";
    case IncidentStatus::kClosed: return "closed";
  }
  return "open";
}

std::optional<IncidentStatus> ParseIncidentStatus(const std::string& name) {
  for (IncidentStatus s : {IncidentStatus::kOpen, IncidentStatus::kAcknowledged, IncidentStatus::kMitigated,
                           IncidentStatus::kResolved, IncidentStatus::kClosed})
    if (name == IncidentStatusName(s)) return s;
  return std::nullopt;
}

const char* CloseReasonName(CloseReason reason) {
  switch (reason) {
    case CloseReason::kNone: return "";
    case CloseReason::kExpected: return "expected";
    case CloseReason::kFalsePositive: return "false_positive";
  }
  return "";
}

std::optional<CloseReason> ParseCloseReason(const std::string& name) {
  if (name == "expected") return CloseReason::kExpected;
  if (name == "false_positive") return CloseReason::kFalsePositive;
  return std::nullopt;
}

}  // namespace dw::incidents
