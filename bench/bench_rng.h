// The seeded generator of the detector benchmarks (xorshift64): the same series on every platform
// for a seed, with the draws the series families need. Benchmark code only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dw::bench {

struct Rng {
  uint64_t s;
  double Uniform() {  // [0, 1)
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  double Normal() {
    double u = std::max(Uniform(), 1e-12), v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }
  double Exponential(double mean) { return -mean * std::log(std::max(Uniform(), 1e-12)); }
};

}  // namespace dw::bench
