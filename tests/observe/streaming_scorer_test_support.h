// What the no-look-ahead tests of the bench-only streaming scorers (CadOse, Artime) share: each
// scorer run over two series that agree on a prefix and over the first series again.
#pragma once

#include <vector>

namespace dw::observe::metrics::test_support {

// The scores of one scorer per series: `a`, `b`, and `a` a second time (`a_again`).
struct TwinScores {
  std::vector<double> a, b, a_again;
};

// Runs a fresh scorer from `make()` (anything with `double Observe(double)`) over `a`, another
// over `b` and a third over `a` again. A scorer without look-ahead gives `a_again == a` and the
// same scores for `a` and `b` over their common prefix.
template <class MakeScorer>
TwinScores ScoreTwins(MakeScorer make, const std::vector<double>& a, const std::vector<double>& b) {
  TwinScores out;
  auto sa = make(), sb = make(), again = make();
  for (double v : a) out.a.push_back(sa.Observe(v));
  for (double v : b) out.b.push_back(sb.Observe(v));
  for (double v : a) out.a_again.push_back(again.Observe(v));
  return out;
}

}  // namespace dw::observe::metrics::test_support
