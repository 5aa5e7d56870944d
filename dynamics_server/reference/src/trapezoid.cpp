#include "cosim/dynamics/reference/trapezoid.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cosim::dynamics::reference {
namespace {

double sign(double x) { return x < 0.0 ? -1.0 : 1.0; }

}  // namespace

void Trapezoid::check() const {
  if (!std::isfinite(start_s) || !std::isfinite(distance) || !(v_max > 0.0) || !(a_max > 0.0) ||
      !std::isfinite(v_max) || !std::isfinite(a_max)) {
    throw std::invalid_argument("trapezoid: start, distance finite; v_max, a_max positive and finite");
  }
}

double Trapezoid::ramp_s() const {
  // A full ramp covers v²/a over both ramps; shorter moves peak below v_max.
  const double peak = std::min(v_max, std::sqrt(std::abs(distance) * a_max));
  return peak / a_max;
}

double Trapezoid::cruise_s() const {
  const double peak = ramp_s() * a_max;
  return peak > 0.0 ? std::max(0.0, (std::abs(distance) - peak * ramp_s()) / peak) : 0.0;
}

double Trapezoid::end_s() const { return start_s + 2.0 * ramp_s() + cruise_s(); }

double Trapezoid::velocity(double t_s) const {
  const double tau = t_s - start_s, ramp = ramp_s(), cruise = cruise_s(), peak = ramp * a_max;
  if (tau <= 0.0 || tau >= 2.0 * ramp + cruise) return 0.0;
  double v = peak;
  if (tau < ramp) v = a_max * tau;
  else if (tau > ramp + cruise) v = a_max * (2.0 * ramp + cruise - tau);
  return sign(distance) * v;
}

double Trapezoid::acceleration(double t_s) const {
  const double tau = t_s - start_s, ramp = ramp_s(), cruise = cruise_s();
  if (tau < 0.0 || tau >= 2.0 * ramp + cruise) return 0.0;
  if (tau < ramp) return sign(distance) * a_max;
  if (tau < ramp + cruise) return 0.0;
  return -sign(distance) * a_max;
}

double Trapezoid::position(double t_s) const {
  const double tau = t_s - start_s, ramp = ramp_s(), cruise = cruise_s(), peak = ramp * a_max;
  if (tau <= 0.0) return 0.0;
  const double total = 2.0 * ramp + cruise;
  if (tau >= total) return distance;
  double s = 0.0;
  if (tau < ramp) {
    s = 0.5 * a_max * tau * tau;
  } else if (tau <= ramp + cruise) {
    s = 0.5 * peak * ramp + peak * (tau - ramp);
  } else {
    const double left = total - tau;  // mirror of the first ramp
    s = std::abs(distance) - 0.5 * a_max * left * left;
  }
  return sign(distance) * s;
}

}  // namespace cosim::dynamics::reference
