#include "cosim/dynamics/roller_contact.hpp"

#include <cmath>
#include <numbers>

namespace cosim::dynamics::omniwheel {
namespace {

const Vector3 kUp = Vector3::UnitZ();

}  // namespace

double WheelGeometry::half_span_rad() const { return std::numbers::pi / rollers; }
double WheelGeometry::roller_offset_m() const { return radius_m * std::cos(half_span_rad()); }
double WheelGeometry::roller_length_m() const {
  return 2.0 * radius_m * std::sin(half_span_rad()) / std::cos(psi_rad);
}

Meridian meridian(const WheelGeometry& g, double q) {
  const double big_r = g.radius_m;
  const double r1 = g.roller_offset_m();
  const double cpsi = std::cos(g.psi_rad);
  const double spsi = std::sin(g.psi_rad);
  const double t = std::tan(g.psi_rad);
  const double tq = std::tan(q);
  const double sec2 = 1.0 / (std::cos(q) * std::cos(q));
  Meridian m{};
  // s(q') = R·cos ψ·sin q' + R₁·sin ψ·tan ψ·tan q' and its derivatives.
  m.s = big_r * cpsi * std::sin(q) + r1 * spsi * t * tq;
  m.ds = big_r * cpsi * std::cos(q) + r1 * spsi * t * sec2;
  m.dds = -big_r * cpsi * std::sin(q) + 2.0 * r1 * spsi * t * sec2 * tq;
  // r² = R² + R₁² − 2R·R₁·cos q' + R₁²·tan²ψ·tan²q' − s²: the distance from the roller axis of
  // the point of the wheel's envelope that touches the floor at wheel angle q'.
  const double f = big_r * big_r + r1 * r1 - 2.0 * big_r * r1 * std::cos(q) + r1 * r1 * t * t * tq * tq - m.s * m.s;
  const double df = 2.0 * big_r * r1 * std::sin(q) + 2.0 * r1 * r1 * t * t * tq * sec2 - 2.0 * m.s * m.ds;
  const double ddf = 2.0 * big_r * r1 * std::cos(q) + 2.0 * r1 * r1 * t * t * (sec2 * sec2 + 2.0 * tq * tq * sec2) -
                     2.0 * (m.ds * m.ds + m.s * m.dds);
  m.r = std::sqrt(std::max(f, 0.0));
  m.dr = df / (2.0 * m.r);
  m.ddr = (0.5 * ddf - m.dr * m.dr) / m.r;
  return m;
}

RollerFrame roller_frame(const WheelGeometry& g, const WheelPose& w, double q_c) {
  const Vector3 rho = std::cos(q_c) * kUp + std::sin(q_c) * w.heading;  // roller centre → wheel centre
  const Vector3 rim = std::cos(q_c) * w.heading - std::sin(q_c) * kUp;  // rim tangent in the wheel plane
  return {w.center - g.roller_offset_m() * rho, std::cos(g.psi_rad) * rim + std::sin(g.psi_rad) * w.axle};
}

ContactPoint explicit_contact(const WheelGeometry& g, const WheelPose& w, double q_c) {
  ContactPoint c;
  c.axial_offset_m = g.roller_offset_m() * std::tan(g.psi_rad) * std::tan(q_c);
  c.point = w.center - g.radius_m * kUp + c.axial_offset_m * w.axle;
  c.meridian_q_rad = q_c;
  return c;
}

ContactPoint implicit_contact(const WheelGeometry& g, const WheelPose& w, double q_c) {
  const RollerFrame roller = roller_frame(g, w, q_c);
  // The lowest point of a body of revolution lies in the vertical plane through its axis, on
  // the meridian, in the direction d ⊥ i2 pointing down: height H(q') = z_B + c·s(q') + d_z·r(q').
  const double c = roller.axis.z();
  const Vector3 d = (-kUp + c * roller.axis).normalized();
  const double dz = d.z();
  const double alpha = g.half_span_rad();
  double lo = -alpha;
  double hi = alpha;
  double q = 0.0;
  int iterations = 0;
  for (; iterations < 100; ++iterations) {
    const Meridian m = meridian(g, q);
    const double h1 = c * m.ds + dz * m.dr;  // H'
    const double h2 = c * m.dds + dz * m.ddr;  // H''
    if (h1 < 0.0) {
      lo = q;
    } else {
      hi = q;
    }
    double next = q - h1 / h2;
    if (!(h2 > 0.0) || !(next > lo && next < hi)) next = 0.5 * (lo + hi);  // keep to the bracket
    const double step = next - q;
    q = next;
    if (std::abs(step) < 1e-13) break;
  }
  const Meridian m = meridian(g, q);
  ContactPoint p;
  p.point = roller.center + m.s * roller.axis + m.r * d;
  p.axial_offset_m = (p.point - w.center).dot(w.axle);
  p.meridian_q_rad = q;
  p.iterations = iterations + 1;
  return p;
}

ContactPoint paper_implicit_formula(const WheelGeometry& g, const WheelPose& w, double q_c) {
  const RollerFrame roller = roller_frame(g, w, q_c);
  const Vector3 rho = (w.center - roller.center) / g.roller_offset_m();
  const Vector3 k2 = roller.axis.cross(kUp).normalized();
  ContactPoint p;
  p.axial_offset_m = (g.radius_m * kUp.dot(k2) - g.roller_offset_m() * rho.dot(k2)) / w.axle.dot(k2);
  p.point = roller.center + g.roller_offset_m() * rho - g.radius_m * kUp + p.axial_offset_m * w.axle;
  p.meridian_q_rad = q_c;
  return p;
}

}  // namespace cosim::dynamics::omniwheel
