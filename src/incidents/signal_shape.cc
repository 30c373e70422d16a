#include "incidents/signal_shape.h"

#include <cmath>

namespace dw::incidents {

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

double NumberAt(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nan("");
  return j[key].get<double>();
}

}  // namespace

SignalShape ShapeOfMetric(const std::string& metric, double value, std::optional<double> expected,
                          std::optional<double> declared_max, bool stuck) {
  if (stuck) return SignalShape::kRepeatsEarlier;
  const bool null_rate = StartsWith(metric, "quality:") && metric.find("null_rate") != std::string::npos;
  if (declared_max && *declared_max == 0 && value > 0) return SignalShape::kMismatchesFound;
  if (!expected || !std::isfinite(*expected)) return null_rate && value > 0 ? SignalShape::kNullRateJump : SignalShape::kUnknown;
  const double e = *expected;
  if (null_rate && value > e) return SignalShape::kNullRateJump;
  if (e > 0) {
    const double ratio = value / e;
    if (ratio <= 0.5) return SignalShape::kLevelDrop;
    if (ratio >= 1.7 && ratio <= 2.4) return SignalShape::kDoubling;
    if (ratio >= 1.3) return SignalShape::kLevelRise;
    return SignalShape::kUnknown;
  }
  if (e == 0 && value > 0) return SignalShape::kLevelRise;
  return SignalShape::kUnknown;
}

double ObservedNumber(const store::CheckResultRow& row) {
  for (const char* key : {"value", "rows_in_window", "null_count", "duplicated_keys", "invalid_count", "rows"}) {
    double v = NumberAt(row.observed, key);
    if (std::isfinite(v)) return v;
  }
  return 0;
}

SignalShape ShapeOfCheck(const store::CheckResultRow& row) {
  const std::string& name = row.check_name;
  if (StartsWith(name, "not_null:")) return SignalShape::kNullRateJump;
  if (StartsWith(name, "unique:")) return SignalShape::kDoubling;
  if (StartsWith(name, "custom:")) {
    double must_be = NumberAt(row.threshold, "must_be");
    if (must_be == 0 && ObservedNumber(row) > 0) return SignalShape::kMismatchesFound;
    return SignalShape::kUnknown;
  }
  if (name == "volume") {
    double max_rows = NumberAt(row.threshold, "max_rows"), min_rows = NumberAt(row.threshold, "min_rows");
    double measured = ObservedNumber(row);
    if (max_rows == 0 && measured > 0) return SignalShape::kMismatchesFound;
    if (std::isfinite(min_rows) && measured < min_rows) return SignalShape::kLevelDrop;
    if (std::isfinite(max_rows) && measured > max_rows) return SignalShape::kLevelRise;
    return SignalShape::kUnknown;
  }
  if (name == "row_count_change") {
    double pct = NumberAt(row.observed, "change_pct");
    if (std::isfinite(pct) && pct >= 70 && pct <= 140) return SignalShape::kDoubling;
    if (std::isfinite(pct) && pct <= -50) return SignalShape::kLevelDrop;
    return SignalShape::kUnknown;
  }
  return SignalShape::kUnknown;
}

bool CouldPropagate(SignalShape upstream, SignalShape downstream) {
  if (upstream == SignalShape::kUnknown || downstream == SignalShape::kUnknown) return true;
  if (downstream == SignalShape::kMismatchesFound || upstream == downstream) return true;
  switch (upstream) {
    case SignalShape::kNullRateJump: return downstream == SignalShape::kLevelDrop;
    case SignalShape::kLevelDrop: return downstream == SignalShape::kNullRateJump;
    case SignalShape::kDoubling: return downstream == SignalShape::kLevelRise;
    case SignalShape::kLevelRise: return downstream == SignalShape::kDoubling;
    case SignalShape::kRepeatsEarlier:
      return downstream == SignalShape::kLevelDrop || downstream == SignalShape::kLevelRise;
    case SignalShape::kMismatchesFound: return false;  // an audit's findings are not carried further as other damage
    case SignalShape::kStateDropped:  // a change, not damage: it explains whatever lies below it
    case SignalShape::kUnknown: return true;
  }
  return true;
}

}  // namespace dw::incidents
