#include "observe/metrics/robust_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dw::observe::metrics {

double MedianInPlace(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  size_t n = values.size();
  size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  double upper = values[mid];
  if (n % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
  return (lower + upper) / 2;
}

double QuantileInPlace(std::vector<double>& values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  size_t k = static_cast<size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<long>(k), values.end());
  return values[k];
}

double ScaledMadInPlace(std::vector<double>& values, double center) {
  for (double& v : values) v = std::fabs(v - center);
  return 1.4826 * MedianInPlace(values);
}

}  // namespace dw::observe::metrics
