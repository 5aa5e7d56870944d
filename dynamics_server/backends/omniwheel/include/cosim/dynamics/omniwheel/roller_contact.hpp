#pragma once
/// @file
/// Geometry of one omni wheel of seed 004 (spec seeds_002_004 §C.2.3): n rollers whose axes are
/// inclined by ψ about the radial line, each a spindle whose meridian makes the wheel's lowest
/// point lie exactly R below its centre; and the two ways of finding the contact point of the
/// roller in contact with the floor z = 0: `explicit` (closed form, paper §5.2) and `implicit`
/// (the nearest point of the roller's body of revolution by safeguarded Newton, paper §3).
/// Frames: world z up; e_f the wheel's heading, a its axle, both horizontal.

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace cosim::dynamics::omniwheel {

using Vector3 = Eigen::Vector3d;

/// The world's up, e_z: the floor is the plane z = 0.
inline const Vector3 kUp = Vector3::UnitZ();

/// Wheel geometry. Derived: α = π/n (half the angle a roller spans), R₁ = R·cos α (centre to
/// roller centre), r0 = R − R₁ (roller radius at its middle), L = 2R·sin α/cos ψ (its length).
struct WheelGeometry {
  double radius_m = 0.05;  ///< R, the wheel's envelope
  int rollers = 4;         ///< n
  double psi_rad = 0.5235987755982988;  ///< ψ, roller inclination about the radial line (30°)

  double half_span_rad() const;    ///< α
  double roller_offset_m() const;  ///< R₁
  double roller_length_m() const;  ///< L
};

/// The roller's meridian, parametrised by the wheel angle q' ∈ [−α, α]: axial coordinate s from
/// the roller centre and radius r, with derivatives in q'. r(±α) = 0, s(±α) = ±L/2.
struct Meridian {
  double s, ds, dds;  ///< s, s', s''
  double r, dr, ddr;  ///< r, r', r'' (r' and r'' unbounded at the tips)
};
Meridian meridian(const WheelGeometry& g, double q);

/// Pose of the wheel: centre O (at height R while in contact), heading e_f, axle a.
struct WheelPose {
  Vector3 center;
  Vector3 heading;  ///< e_f
  Vector3 axle;     ///< a = e_z × e_f
};

/// Roller k's centre O_B and axis i2 at contact angle q_c (its angle from the bottom, |q_c| ≤ α).
struct RollerFrame {
  Vector3 center;  ///< O_B = O − R₁·ρ
  Vector3 axis;    ///< i2 = cos ψ·(cos q_c·e_f − sin q_c·e_z) + sin ψ·a
};
RollerFrame roller_frame(const WheelGeometry& g, const WheelPose& w, double q_c);

/// A contact point with its axial offset μ_ax (P = O − R·e_z + μ_ax·a) and the meridian
/// parameter of the touching point; iterations is 0 for the closed form.
struct ContactPoint {
  Vector3 point;
  double axial_offset_m = 0.0;
  double meridian_q_rad = 0.0;
  int iterations = 0;
};

/// Closed form (paper §5.2, our orientation of i2): μ_ax = R₁·tan ψ·tan q_c.
ContactPoint explicit_contact(const WheelGeometry& g, const WheelPose& w, double q_c);

/// Nearest point of the roller's body of revolution to the floor, without the closed form: the
/// lowest meridian point in the vertical plane through the roller axis, H'(q') = 0 solved by
/// Newton with an analytic H'' inside the bracket [−α, α] (bisection when a step leaves it),
/// from q' = 0, to |Δq'| < 1e-13. Pure: no warm start, so the result depends on its arguments only.
ContactPoint implicit_contact(const WheelGeometry& g, const WheelPose& w, double q_c);

/// The paper's §5.1 construction (bases k₂ …): the same point, a unit-test identity.
ContactPoint paper_implicit_formula(const WheelGeometry& g, const WheelPose& w, double q_c);

}  // namespace cosim::dynamics::omniwheel
