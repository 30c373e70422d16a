#include "observe/metrics/robust_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dw::observe::metrics {
namespace {

// The order of doubles, as a type of this file only. Why not std::less and vector iterators: the
// instrumented build compiles this file at -O1 and most others at -O0 (CMakeLists.txt), and a
// template instantiated in both is one symbol the linker takes from either; it took the -O0
// copies of nth_element's partitions, and the detector's medians ran unoptimised (the snapshot
// suite's first case took 17.9 s under the sanitizers, 11.1 s with this). A comparator with
// internal linkage over raw pointers makes every instantiation below this file's own.
struct Less {
  bool operator()(double a, double b) const { return a < b; }
};

}  // namespace

double MedianInPlace(std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  size_t n = values.size();
  size_t mid = n / 2;
  double* v = values.data();
  std::nth_element(v, v + mid, v + n, Less{});
  double upper = v[mid];
  if (n % 2 == 1) return upper;
  double lower = *std::max_element(v, v + mid, Less{});
  return (lower + upper) / 2;
}

double QuantileInPlace(std::vector<double>& values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  size_t k = static_cast<size_t>(q * static_cast<double>(values.size() - 1));
  double* v = values.data();
  std::nth_element(v, v + k, v + values.size(), Less{});
  return v[k];
}

double ScaledMadInPlace(std::vector<double>& values, double center) {
  for (double& v : values) v = std::fabs(v - center);
  return 1.4826 * MedianInPlace(values);
}

}  // namespace dw::observe::metrics
