#include "cosim/dynamics/mecanum4/mecanum4_kinematics.hpp"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <cmath>
#include <numbers>

namespace cosim::dynamics::mecanum4 {
using reference::Trapezoid;


Eigen::Vector2d Geometry::wheel_position(int i) const {
  static constexpr double kSignX[kWheels] = {-1.0, -1.0, 1.0, 1.0};
  static constexpr double kSignY[kWheels] = {-1.0, 1.0, 1.0, -1.0};
  return {kSignX[i] * half_track_m, kSignY[i] * half_base_m};
}

double Geometry::roller_angle_rad(int i) const {
  return (i % 2 == 0 ? -1.0 : 1.0) * std::numbers::pi / 4.0;
}

Vector3 Geometry::roller_axis(int i) const {
  const double gamma = roller_angle_rad(i);
  return {std::cos(gamma), std::sin(gamma), 0.0};
}

Vector3 Geometry::omni_drive(int i) const { return (roller_angle_rad(i) < 0.0 ? 1.0 : -1.0) * roller_axis(i); }

Vector3 Geometry::omni_axle(int i) const { return Vector3::UnitZ().cross(omni_drive(i)); }

Matrix43 inverse_jacobian(const Geometry& g) {
  // Eq. (7): the hub moves at (v_x − Ω·p_y, v_y + Ω·p_x); spinning at ω about +x_B its bottom
  // point moves at +R·ω·y_B relative to it. No slip along u_i:
  // (v_x − Ω p_y)·cos γ + (v_y + Ω p_x + R ω)·sin γ = 0.
  Matrix43 j;
  for (int i = 0; i < kWheels; ++i) {
    const Eigen::Vector2d p = g.wheel_position(i);
    const double cot = 1.0 / std::tan(g.roller_angle_rad(i));
    j.row(i) << -cot / g.wheel_radius_m, -1.0 / g.wheel_radius_m, -(p.x() - p.y() * cot) / g.wheel_radius_m;
  }
  return j;
}

Matrix34 forward_jacobian(const Geometry& g) {
  const Matrix43 j = inverse_jacobian(g);
  return (j.transpose() * j).inverse() * j.transpose();
}

Matrix43 omni_jacobian(const Geometry& g) {
  // ω'_i = d'_i·v_Hi / R with v_Hi = (v_x − Ω p_y, v_y + Ω p_x).
  Matrix43 j;
  for (int i = 0; i < kWheels; ++i) {
    const Eigen::Vector2d p = g.wheel_position(i);
    const Vector3 d = g.omni_drive(i);
    j.row(i) << d.x() / g.wheel_radius_m, d.y() / g.wheel_radius_m, (-d.x() * p.y() + d.y() * p.x()) / g.wheel_radius_m;
  }
  return j;
}

Vector4 consistency_row() { return Vector4(1.0, -1.0, -1.0, 1.0) / 4.0; }

Eigen::Matrix3d world_to_body(double theta_rad) {
  const double c = std::cos(theta_rad), s = std::sin(theta_rad);
  Eigen::Matrix3d r;
  r << c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0;
  return r;
}

Trapezoid Manoeuvre::x_move() const { return {settle_s, leg_m, speed_m_per_s, accel_m_per_s2}; }
Trapezoid Manoeuvre::y_move() const { return {x_move().end_s() + stop_s, leg_m, speed_m_per_s, accel_m_per_s2}; }
Trapezoid Manoeuvre::diagonal() const { return {y_move().end_s() + stop_s, -leg_m, speed_m_per_s, accel_m_per_s2}; }
Trapezoid Manoeuvre::turn() const {
  return {diagonal().end_s() + stop_s, turn_rad, turn_rate_rad_per_s, turn_accel_rad_per_s2};
}

ReferenceSample reference_at(const Manoeuvre& m, double t_s) {
  const Trapezoid x = m.x_move(), y = m.y_move(), d = m.diagonal(), turn = m.turn();
  ReferenceSample r;
  r.pose << x.position(t_s) + d.position(t_s), y.position(t_s) + d.position(t_s), turn.position(t_s);
  r.velocity << x.velocity(t_s) + d.velocity(t_s), y.velocity(t_s) + d.velocity(t_s), turn.velocity(t_s);
  r.acceleration << x.acceleration(t_s) + d.acceleration(t_s), y.acceleration(t_s) + d.acceleration(t_s),
      turn.acceleration(t_s);
  return r;
}

}  // namespace cosim::dynamics::mecanum4
