#pragma once
/// @file
/// Spatial (6D) vector algebra in Featherstone's convention (Rigid Body Dynamics Algorithms,
/// 2008, ch. 2): a spatial vector is [angular; linear], a motion (velocity, acceleration) or a
/// force (moment about the frame's origin; force). Frames are right-handed, units SI.

#include <Eigen/Core>

namespace cosim::multibody {

using Vector3 = Eigen::Vector3d;
using Matrix3 = Eigen::Matrix3d;
using Vector6 = Eigen::Matrix<double, 6, 1>;  ///< [angular; linear]
using Matrix6 = Eigen::Matrix<double, 6, 6>;

/// [v]×, so that skew(v)·w = v × w.
Matrix3 skew(const Vector3& v);

/// v×, the motion cross product: v ×ₘ m for a motion m (Featherstone's crm).
Matrix6 motion_cross(const Vector6& v);
/// v×*, the force cross product: v ×_f f for a force f (crf = −crmᵀ).
Matrix6 force_cross(const Vector6& v);

/// Coordinate transform from frame A to frame B (Plücker transform ᴮX_A): B's axes are A's
/// turned by the rotation whose matrix, applied to A coordinates, gives B coordinates (E), and
/// B's origin is at r in A coordinates. Composition: (C←B)·(B←A) = C←A.
struct Transform {
  Matrix3 E = Matrix3::Identity();
  Vector3 r = Vector3::Zero();

  /// A motion in A coordinates, in B coordinates: [E ω; E (v − r × ω)].
  Vector6 apply_motion(const Vector6& m) const;
  /// A force in A coordinates, in B coordinates: [E (n − r × f); E f].
  Vector6 apply_force(const Vector6& f) const;
  /// A motion in B coordinates, in A coordinates (the inverse of apply_motion).
  Vector6 inverse_motion(const Vector6& m) const;
  /// A force in B coordinates, in A coordinates (Xᵀ·f: the inverse of apply_force).
  Vector6 inverse_force(const Vector6& f) const;
  /// The 6×6 matrix of apply_motion.
  Matrix6 motion_matrix() const;
  /// This (C←B) after `first` (B←A): C←A.
  Transform operator*(const Transform& first) const;
  Transform inverse() const;
  /// A point given in A coordinates, in B coordinates.
  Vector3 apply_point(const Vector3& p) const { return E * (p - r); }
};

/// Frame B turned by `angle_rad` about the unit `axis` of A (right hand), same origin.
Transform rotation(const Vector3& axis, double angle_rad);
/// Frame B with A's axes, its origin at `r` in A.
Transform translation(const Vector3& r);

/// Mass properties of a rigid body in its own frame.
struct SpatialInertia {
  double mass_kg = 0.0;
  Vector3 com_m = Vector3::Zero();                   ///< centre of mass in the body frame
  Matrix3 inertia_com_kg_m2 = Matrix3::Zero();       ///< rotational inertia about the COM, body axes

  /// The 6×6 spatial inertia about the body frame's origin.
  Matrix6 matrix() const;
};

}  // namespace cosim::multibody
