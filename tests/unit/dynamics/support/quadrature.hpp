#pragma once
// Test-side quadrature, independent of the backend's hard-coded 5-node rule: Gauss–Legendre
// nodes of any order from Newton's method on the Legendre recurrence.

#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

namespace cosim::dynamics::test {

struct GaussRule {
  std::vector<double> node;    // on [0, 1]
  std::vector<double> weight;  // sums to 1
};

inline GaussRule gauss_legendre(int order) {
  GaussRule rule;
  rule.node.resize(static_cast<std::size_t>(order));
  rule.weight.resize(static_cast<std::size_t>(order));
  for (int i = 0; i < order; ++i) {
    double x = std::cos(std::numbers::pi * (i + 0.75) / (order + 0.5));
    double dp = 0.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0;
      double p1 = x;
      for (int n = 2; n <= order; ++n) {
        const double p2 = ((2.0 * n - 1.0) * x * p1 - (n - 1.0) * p0) / n;
        p0 = p1;
        p1 = p2;
      }
      dp = order * (x * p1 - p0) / (x * x - 1.0);
      const double dx = p1 / dp;
      x -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    rule.node[static_cast<std::size_t>(i)] = 0.5 * (1.0 - x);
    rule.weight[static_cast<std::size_t>(i)] = 1.0 / ((1.0 - x * x) * dp * dp);
  }
  return rule;
}

// ∫_a^b f with `panels` equal panels of the given rule.
template <class F>
double integrate(const GaussRule& rule, F&& f, double a, double b, int panels) {
  const double h = (b - a) / panels;
  double sum = 0.0;
  for (int p = 0; p < panels; ++p) {
    const double t0 = a + p * h;
    double panel = 0.0;
    for (std::size_t j = 0; j < rule.node.size(); ++j) panel += rule.weight[j] * f(t0 + rule.node[j] * h);
    sum += panel * h;
  }
  return sum;
}

}  // namespace cosim::dynamics::test
