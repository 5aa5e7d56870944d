#include "cosim/dynamics/reference/rose_reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "cosim/dynamics/format_number.hpp"

namespace cosim::dynamics::reference {
namespace {

// F(x) = x + atan((k−1)·sin x·cos x / (cos²x + k·sin²x)): the angle of (−k sin x, cos x) minus
// π/2, on a continuous branch. The atan argument never has a pole because k > 0.
double heading_shape(double x, double k) {
  const double s = std::sin(x);
  const double c = std::cos(x);
  return x + std::atan((k - 1.0) * s * c / (c * c + k * s * s));
}

}  // namespace

RoseReference::RoseReference(const RoseParams& params) : params_(params) {
  const bool finite = std::isfinite(params.amplitude_m) && std::isfinite(params.petals_k) &&
                      std::isfinite(params.rate_rad_per_s) && std::isfinite(params.phase_rad);
  if (!finite || params.amplitude_m == 0.0 || params.rate_rad_per_s == 0.0 ||
      !(params.petals_k > 0.0)) {
    throw std::invalid_argument(
        "rose reference needs finite parameters with amplitude != 0, rate != 0 and petals k > 0; got "
        "a = " + format_number(params.amplitude_m) + " m, k = " + format_number(params.petals_k) +
        ", rate = " + format_number(params.rate_rad_per_s) + " rad/s, phase = " +
        format_number(params.phase_rad) + " rad");
  }
  // Pin the continuous heading to atan2 of the initial velocity, in (−π, π].
  heading_offset_rad_ = 0.0;
  const RoseSample s0 = at(0.0);
  double phi0 = std::atan2(s0.vy_m_per_s, s0.vx_m_per_s);
  if (phi0 <= -std::numbers::pi) phi0 += 2.0 * std::numbers::pi;
  heading_offset_rad_ = phi0 - s0.phi_rad;
}

RoseSample RoseReference::at(double t_s) const {
  const double a = params_.amplitude_m;
  const double k = params_.petals_k;
  const double rate = params_.rate_rad_per_s;
  const double varphi = rate * t_s + params_.phase_rad;  // ϕ, eq. 25
  const double x = k * varphi;
  const double sin_v = std::sin(varphi);
  const double cos_v = std::cos(varphi);
  const double sin_x = std::sin(x);
  const double cos_x = std::cos(x);

  RoseSample s{};
  s.x_m = a * cos_x * cos_v;  // eq. 24
  s.y_m = a * cos_x * sin_v;
  // (Ẋ, Ẏ) = a·rate·Rot(ϕ)·(u, v), eq. 26.
  const double u = -k * sin_x;
  const double v = cos_x;
  s.vx_m_per_s = a * rate * (u * cos_v - v * sin_v);
  s.vy_m_per_s = a * rate * (u * sin_v + v * cos_v);
  s.phi_rad = varphi + heading_shape(x, k) + heading_offset_rad_;
  const double k2 = k * k;
  const double s2 = sin_x * sin_x;
  const double c2 = cos_x * cos_x;
  s.omega_rad_per_s = rate * (2.0 * k2 * s2 + (k2 + 1.0) * c2) / (k2 * s2 + c2);  // eq. 28
  return s;
}

}  // namespace cosim::dynamics::reference
