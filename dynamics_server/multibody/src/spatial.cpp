#include "cosim/multibody/spatial.hpp"

#include <Eigen/Geometry>

namespace cosim::multibody {

Matrix3 skew(const Vector3& v) {
  Matrix3 m;
  m << 0.0, -v.z(), v.y(),  //
      v.z(), 0.0, -v.x(),   //
      -v.y(), v.x(), 0.0;
  return m;
}

Matrix6 motion_cross(const Vector6& v) {
  const Matrix3 w = skew(v.head<3>());
  Matrix6 m;
  m << w, Matrix3::Zero(), skew(v.tail<3>()), w;
  return m;
}

Matrix6 force_cross(const Vector6& v) { return -motion_cross(v).transpose(); }

Vector6 Transform::apply_motion(const Vector6& m) const {
  const Vector3 w = m.head<3>();
  Vector6 out;
  out << E * w, E * (m.tail<3>() - r.cross(w));
  return out;
}

Vector6 Transform::apply_force(const Vector6& f) const {
  const Vector3 force = f.tail<3>();
  Vector6 out;
  out << E * (f.head<3>() - r.cross(force)), E * force;
  return out;
}

Vector6 Transform::inverse_motion(const Vector6& m) const {
  const Vector3 w = E.transpose() * m.head<3>();
  Vector6 out;
  out << w, E.transpose() * m.tail<3>() + r.cross(w);
  return out;
}

Vector6 Transform::inverse_force(const Vector6& f) const {
  const Vector3 force = E.transpose() * f.tail<3>();
  Vector6 out;
  out << E.transpose() * f.head<3>() + r.cross(force), force;
  return out;
}

Matrix6 Transform::motion_matrix() const {
  Matrix6 m;
  m << E, Matrix3::Zero(), -E * skew(r), E;
  return m;
}

Transform Transform::operator*(const Transform& first) const {
  // first: B←A (E1, r1), this: C←B (E2, r2). C's origin in A: r1 + E1ᵀ r2.
  return {E * first.E, first.r + first.E.transpose() * r};
}

Transform Transform::inverse() const { return {E.transpose(), -(E * r)}; }

Transform rotation(const Vector3& axis, double angle_rad) {
  // B's axes are A's turned by +angle about axis: coordinates map by the transposed rotation.
  return {Eigen::AngleAxisd(angle_rad, axis).toRotationMatrix().transpose(), Vector3::Zero()};
}

Transform translation(const Vector3& r) { return {Matrix3::Identity(), r}; }

Matrix6 SpatialInertia::matrix() const {
  const Matrix3 c = skew(com_m);
  Matrix6 m;
  m << inertia_com_kg_m2 - mass_kg * c * c, mass_kg * c, -mass_kg * c, mass_kg * Matrix3::Identity();
  return m;
}

}  // namespace cosim::multibody
