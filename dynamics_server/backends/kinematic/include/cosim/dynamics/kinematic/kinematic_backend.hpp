#pragma once
/// @file
/// The `kinematic` backend: a Robotino that follows the rose reference exactly (no dynamics).
/// Chassis pose = analytic reference; wheel angles θ_i = ∫ω_i dt of the inverse-kinematics wheel
/// speeds; roller angles = ∫ v_ix / r_roll dt while each roller is in contact, with the
/// integration split exactly at contact switches.

#include <cstddef>
#include <memory>
#include <span>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"
#include "cosim/dynamics/reference/rose_reference.hpp"

namespace cosim::dynamics::kinematic {
using reference::RoseParams;
using reference::RoseReference;
using robotino_common::RobotinoGeometry;


/// Declared parameters of `kinematic`: robotino_geometry_param_specs() (wheel_radius_m,
/// wheel_distance_m, roller_max_radius_m), then rose_param_specs() (rose_amplitude_m,
/// rose_petals, rose_rate_rad_per_s, rose_phase_rad).
std::span<const ParamSpec> kinematic_param_specs();

/// Registry factory. Throws ParamError if roller_max_radius_m ≤ wheel_radius_m·(1 − cos 30°)
/// (the rolling arm would reach zero).
std::unique_ptr<Backend> make_kinematic_backend(const Params& params, double t0_s);

/// Column indices into KinematicBackend::outputs() (names in output_names()).
namespace kinematic_output {
inline constexpr std::size_t kXRef = 0;           ///< x_ref_m
inline constexpr std::size_t kYRef = 1;           ///< y_ref_m
inline constexpr std::size_t kPhiRef = 2;         ///< phi_ref_rad
inline constexpr std::size_t kVxRef = 3;          ///< vx_ref_m_per_s
inline constexpr std::size_t kVyRef = 4;          ///< vy_ref_m_per_s
inline constexpr std::size_t kOmegaRef = 5;       ///< omega_ref_rad_per_s
inline constexpr std::size_t kOmega1 = 6;         ///< omega{1..3}_rad_per_s: IK wheel speeds
inline constexpr std::size_t kContact1 = 9;       ///< contact{1..3}: roller in contact, 1..6
inline constexpr std::size_t kSideVelocity1 = 12;  ///< v_side{1..3}_m_per_s: v_ix along the axle
inline constexpr std::size_t kRollingArm1 = 15;   ///< r_roll{1..3}_m: contact roller's arm
inline constexpr std::size_t kRollerSpeed1 = 18;  ///< omega_roll{1..3}_rad_per_s: contact roller spin
inline constexpr std::size_t kCount = 21;
}  // namespace kinematic_output

/// Robotino following a RoseReference exactly. Joint layout: robotino_joint_names().
/// At t0_s the wheel and roller angles are 0.
class KinematicBackend final : public Backend {
 public:
  /// Longest quadrature substep [s]: frames are split into equal substeps no longer than this.
  static constexpr double kMaxSubstep_s = 0.005;

  /// Throws std::invalid_argument for a non-positive rolling arm or an invalid rose.
  KinematicBackend(const RobotinoGeometry& geometry, const RoseParams& rose, double t0_s);

  const RobotinoGeometry& geometry() const { return geometry_; }
  const RoseReference& reference() const { return rose_; }

 private:
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  /// Integrates wheel and roller angles over [ta_s, tb_s] (one substep).
  void substep(double ta_s, double tb_s, std::span<double> q) const;
  /// Fills every output from the reference at t_s and the current wheel angles.
  void write_outputs(double t_s, std::span<const double> q, std::span<double> outputs) const;

  RobotinoGeometry geometry_;
  RoseReference rose_;
};

}  // namespace cosim::dynamics::kinematic
