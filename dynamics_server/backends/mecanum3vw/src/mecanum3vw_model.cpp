#include "cosim/dynamics/mecanum3vw/mecanum3vw_model.hpp"

#include <Eigen/Cholesky>
#include <cmath>

namespace cosim::dynamics::mecanum3vw {

WheelPlace wheel_place(const Geometry& g, int wheel) {
  switch (wheel) {
    case 0: return {g.front_axle_m, -g.half_track_m, +1.0};  // front right, roller axis +45°
    case 1: return {g.front_axle_m, +g.half_track_m, -1.0};  // front left, −45°
    default: return {-g.rear_wheel_m, 0.0, -1.0};            // rear centre, −45°
  }
}

Matrix3 wheel_jacobian(const Geometry& g) {
  // No slip along the contact roller's axis u_i = (1, σ_i)/√2 (K):
  // r·ω_i = (v_x − Ω·y_i) + σ_i·(v_y + Ω·x_i).
  Matrix3 j;
  for (int i = 0; i < 3; ++i) {
    const WheelPlace w = wheel_place(g, i);
    j.row(i) << 1.0, w.sigma, w.sigma * w.x_m - w.y_m;
  }
  return j / g.wheel_radius_m;
}

Matrix3 wheel_jacobian_inverse(const Geometry& g) {
  const double r = g.wheel_radius_m;
  const double ab = g.front_axle_m + g.half_track_m;
  const double s = ab + g.rear_wheel_m;  // a + b + h
  Matrix3 jf;
  jf << 0.5, 0.5, 0.0,                            //
      0.5, (ab - g.rear_wheel_m) / (2.0 * s), -ab / s,  //
      0.0, -1.0 / s, 1.0 / s;
  return r * jf;
}

Matrix3 body_mass(const Inertia& m) { return Vector3(m.mass_kg, m.mass_kg, m.yaw_inertia_kg_m2).asDiagonal(); }

Vector3 coriolis(const Inertia& m, const Vector3& xi) {
  return {-m.mass_kg * xi.z() * xi.y(), m.mass_kg * xi.z() * xi.x(), 0.0};
}

Vector3 virtual_work_torques(const Geometry& g, const Inertia& m, const Vector3& xi, const Vector3& xi_dot) {
  const Matrix3 j = wheel_jacobian(g);
  return wheel_jacobian_inverse(g).transpose() * (body_mass(m) * xi_dot + coriolis(m, xi)) +
         m.wheel_inertia_kg_m2 * (j * xi_dot) + m.wheel_viscous_N_m_s * (j * xi);
}

Vector3 body_acceleration(const Geometry& g, const Inertia& m, const Vector3& xi, const Vector3& tau) {
  const Matrix3 j = wheel_jacobian(g);
  const Matrix3 mass = body_mass(m) + m.wheel_inertia_kg_m2 * j.transpose() * j;
  const Vector3 force = j.transpose() * (tau - m.wheel_viscous_N_m_s * (j * xi)) - coriolis(m, xi);
  return mass.llt().solve(force);  // symmetric positive definite
}

double kinetic_energy_J(const Geometry& g, const Inertia& m, const Vector3& xi) {
  const Matrix3 j = wheel_jacobian(g);
  return 0.5 * xi.dot((body_mass(m) + m.wheel_inertia_kg_m2 * j.transpose() * j) * xi);
}

Matrix3 world_to_body(double theta_rad) {
  const double c = std::cos(theta_rad);
  const double s = std::sin(theta_rad);
  Matrix3 r;
  r << c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0;
  return r;
}

Matrix3 world_to_body_derivative(double theta_rad) {
  const double c = std::cos(theta_rad);
  const double s = std::sin(theta_rad);
  Matrix3 d;
  d << -s, c, 0.0, -c, -s, 0.0, 0.0, 0.0, 0.0;
  return d;
}

PathSample path_at(const PathParams& p, double t_s) {
  const double a = p.radius_m;
  const double w = p.rate_rad_per_s;
  // Circle: (a cos ωt, a sin ωt); eight: (a cos(ωt/2), a sin ωt), both starting at (a, 0).
  const double wx = p.path == Path::kCircle ? w : 0.5 * w;
  PathSample s;
  s.q = {a * std::cos(wx * t_s), a * std::sin(w * t_s), p.heading0_rad + p.heading_rate_rad_per_s * t_s};
  s.q_dot = {-a * wx * std::sin(wx * t_s), a * w * std::cos(w * t_s), p.heading_rate_rad_per_s};
  s.q_ddot = {-a * wx * wx * std::cos(wx * t_s), -a * w * w * std::sin(w * t_s), 0.0};
  return s;
}

Vector3 tracking_torques(const Geometry& g, const Inertia& model, const Gains& k, const PathSample& ref,
                         const Vector3& q, const Vector3& xi) {
  const double theta = q.z();
  const Matrix3 r = world_to_body(theta);
  const Vector3 q_dot = r.transpose() * xi;
  const Vector3 e = ref.q - q;
  const Vector3 e_dot = ref.q_dot - q_dot;
  const Vector3 q_ddot_c = ref.q_ddot + k.kp_per_s * e_dot + k.ki_per_s2 * e;
  const Vector3 xi_dot_c = r * q_ddot_c + xi.z() * (world_to_body_derivative(theta) * q_dot);
  return virtual_work_torques(g, model, xi, xi_dot_c);
}

}  // namespace cosim::dynamics::mecanum3vw
