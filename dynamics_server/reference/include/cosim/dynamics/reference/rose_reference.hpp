#pragma once
/// @file
/// The rose reference path of seed 000 §3.4 (eqs. 24-29), evaluated analytically.

#include <numbers>

namespace cosim::dynamics::reference {

/// Rose X = a·cos(kϕ)·cos ϕ, Y = a·cos(kϕ)·sin ϕ with ϕ = rate·t + phase (seed 000 eqs. 24-25).
struct RoseParams {
  double amplitude_m = 2.0;                          ///< a [m]
  double petals_k = 3.0;                             ///< k [1]; k = 3 gives three petals
  double rate_rad_per_s = 0.1;                       ///< dϕ/dt [rad/s]
  double phase_rad = 5.0 * std::numbers::pi / 6.0;  ///< ϕ at t = 0 [rad]
};

/// Reference state of the chassis centre C in the world frame W at one time.
struct RoseSample {
  double x_m;              ///< X_ref [m]
  double y_m;              ///< Y_ref [m]
  double phi_rad;          ///< heading φ_ref, tangent to the path, continuous (unwrapped) [rad]
  double vx_m_per_s;       ///< dX_ref/dt [m/s]
  double vy_m_per_s;       ///< dY_ref/dt [m/s]
  double omega_rad_per_s;  ///< ω_ref = dφ_ref/dt [rad/s] (eq. 28)
};

/// Analytic rose reference; no integration, so any t can be evaluated independently.
///
/// Heading: (Ẋ, Ẏ) = a·rate·Rot(ϕ)·(−k·sin kϕ, cos kϕ), so
/// φ_ref = ϕ + F(kϕ) + c with F(x) = x + atan((k−1)·sin x·cos x / (cos²x + k·sin²x)),
/// which is smooth (F' = k / (cos²x + k²·sin²x)) and is exactly ∫ω_ref dt (eq. 29).
/// c makes φ_ref(0) = atan2(Ẏ(0), Ẋ(0)) in (−π, π] (−π/6 for the default rose).
class RoseReference {
 public:
  /// Throws std::invalid_argument unless all fields are finite, a ≠ 0, rate ≠ 0 and k > 0.
  explicit RoseReference(const RoseParams& params);

  /// Reference at time t_s [s].
  RoseSample at(double t_s) const;

  const RoseParams& params() const { return params_; }

 private:
  RoseParams params_;
  double heading_offset_rad_;  ///< c above [rad]
};

}  // namespace cosim::dynamics::reference
