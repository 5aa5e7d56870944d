#include "cosim/dynamics/omniwheel/roller_contact.hpp"

#include <cmath>
#include <numbers>

namespace cosim::dynamics::omniwheel {
double WheelGeometry::half_span_rad() const { return std::numbers::pi / rollers; }
double WheelGeometry::roller_offset_m() const { return radius_m * std::cos(half_span_rad()); }
double WheelGeometry::roller_length_m() const {
  return 2.0 * radius_m * std::sin(half_span_rad()) / std::cos(psi_rad);
}

Meridian meridian(const WheelGeometry& g, double q) {
  // In the frame of a wheel at the origin (e_f = x, a = y, e_z = z) with this roller at contact
  // angle q: v = P − O_B, the contact point seen from the roller centre, and the roller axis i2.
  // s = v·i2 and r = |v × i2|: near the tips r → 0 like (α − |q|), and r² = |v|² − s² would
  // lose it to cancellation (an error of ~1e-10 m in P there); the cross product keeps it to
  // rounding of v, and r' = (w·w')/r, r'' = (w'·w' + w·w'' − r'²)/r follow from w = v × i2.
  const double big_r = g.radius_m;
  const double r1 = g.roller_offset_m();
  const double cpsi = std::cos(g.psi_rad);
  const double spsi = std::sin(g.psi_rad);
  const double t = std::tan(g.psi_rad);
  const double cq = std::cos(q);
  const double sq = std::sin(q);
  const double sec2 = 1.0 / (cq * cq);
  const double tq = sq / cq;
  // μ(q) = R₁·tan ψ·tan q and its derivatives.
  const double mu = r1 * t * tq;
  const double dmu = r1 * t * sec2;
  const double ddmu = 2.0 * r1 * t * sec2 * tq;
  // v = R₁·ρ − R·e_z + μ·a with ρ = (sin q, 0, cos q).
  const Vector3 v(r1 * sq, mu, r1 * cq - big_r);
  const Vector3 dv(r1 * cq, dmu, -r1 * sq);
  const Vector3 ddv(-r1 * sq, ddmu, -r1 * cq);
  // i2 = cos ψ·(cos q·e_f − sin q·e_z) + sin ψ·a.
  const Vector3 axis(cpsi * cq, spsi, -cpsi * sq);
  const Vector3 daxis(-cpsi * sq, 0.0, -cpsi * cq);
  const Vector3 ddaxis(-cpsi * cq, 0.0, cpsi * sq);
  Meridian m{};
  m.s = v.dot(axis);
  m.ds = dv.dot(axis) + v.dot(daxis);
  m.dds = ddv.dot(axis) + 2.0 * dv.dot(daxis) + v.dot(ddaxis);
  const Vector3 w = v.cross(axis);
  const Vector3 dw = dv.cross(axis) + v.cross(daxis);
  const Vector3 ddw = ddv.cross(axis) + 2.0 * dv.cross(daxis) + v.cross(ddaxis);
  m.r = w.norm();
  m.dr = w.dot(dw) / m.r;
  m.ddr = (dw.dot(dw) + w.dot(ddw) - m.dr * m.dr) / m.r;
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
