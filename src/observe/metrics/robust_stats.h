// Order statistics that one outlier cannot drag: median, median absolute deviation, quantiles.
#pragma once

#include <vector>

namespace dw::observe::metrics {

// The median of `values` (average of the two middle ones for an even count); NaN when empty.
// Reorders `values` (callers pass a scratch copy).
double MedianInPlace(std::vector<double>& values);
// The `q`-quantile (0 <= q <= 1, nearest rank below) of `values`; NaN when empty. Reorders `values`.
double QuantileInPlace(std::vector<double>& values, double q);
// The median absolute deviation around `center`, scaled by 1.4826 so that it estimates the
// standard deviation of normal noise; NaN when empty. Overwrites `values` with |v - center|.
double ScaledMadInPlace(std::vector<double>& values, double center);

}  // namespace dw::observe::metrics
