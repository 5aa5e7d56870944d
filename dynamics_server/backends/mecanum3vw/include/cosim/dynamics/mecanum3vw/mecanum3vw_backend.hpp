#pragma once
/// @file
/// The `mecanum3vw` backend (seed 003): a three-Mecanum-wheel robot tracking a circle or a
/// figure-eight under computed torque from the virtual-work inverse dynamics; the plant is the
/// same model with its own (possibly mismatched) mass and inertia. The ODE is integrated by the
/// DAE kit's IdaSolver; contact-roller changes are root-found events (bookkeeping only: the
/// roller angles are kinematic). Equations and parameters: MODEL.md.

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "cosim/dae/event_stepper.hpp"
#include "cosim/dae/ida_solver.hpp"
#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/mecanum3vw/mecanum3vw_model.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::mecanum3vw {

/// Declared parameters of `mecanum3vw` (geometry, inertia, plant mismatch, gains, path, start,
/// solver), each with its source.
std::span<const ParamSpec> mecanum3vw_param_specs();

/// Registry factory; throws ParamError naming the key for an invalid combination.
std::unique_ptr<Backend> make_mecanum3vw_backend(const Params& params, double t0_s);

/// Column indices into outputs(); per-wheel quantities take 3 columns.
namespace mecanum3vw_output {
inline constexpr std::size_t kXRef = 0;           ///< x_ref_m
inline constexpr std::size_t kYRef = 1;           ///< y_ref_m
inline constexpr std::size_t kPhiRef = 2;       ///< phi_ref_rad
inline constexpr std::size_t kEx = 3;             ///< ex_m = x_ref − x (world)
inline constexpr std::size_t kEy = 4;             ///< ey_m
inline constexpr std::size_t kEPhi = 5;         ///< ephi_rad
inline constexpr std::size_t kExBody = 6;         ///< ex_body_m: e in the body frame (eq. 21)
inline constexpr std::size_t kEyBody = 7;         ///< ey_body_m
inline constexpr std::size_t kVx = 8;             ///< vx_m_per_s, body frame
inline constexpr std::size_t kVy = 9;             ///< vy_m_per_s
inline constexpr std::size_t kOmegaZ = 10;        ///< omega_z_rad_per_s
inline constexpr std::size_t kOmega1 = 11;        ///< omega{i}_rad_per_s, wheel speed
inline constexpr std::size_t kTau1 = 14;          ///< tau{i}_N_m, wheel torque
inline constexpr std::size_t kContact1 = 17;      ///< contact{i}, roller in contact 1..12
inline constexpr std::size_t kRollerSpeed1 = 20;  ///< omega_roll{i}_rad_per_s
inline constexpr std::size_t kPower = 23;         ///< power_W = Σ τ_i·ω_i
inline constexpr std::size_t kEnergyIn = 24;      ///< energy_in_J = ∫ power dt
inline constexpr std::size_t kEnergyRes = 25;     ///< energy_resistive_J = ∫ b_w·|J ξ|² dt
inline constexpr std::size_t kEnergyStored = 26;  ///< energy_stored_J, kinetic
inline constexpr std::size_t kEnergyBalance = 27; ///< energy_balance_J = in − losses − Δstored
inline constexpr std::size_t kCount = 28;
}  // namespace mecanum3vw_output

/// Everything the backend is built from.
struct Mecanum3Config {
  mecanum3vw::Geometry geometry;
  mecanum3vw::Inertia model;  ///< what the controller believes
  mecanum3vw::Inertia plant;  ///< what is simulated
  mecanum3vw::Gains gains;
  mecanum3vw::PathParams path;
  double initial_offset_x_m = 0.0;  ///< start this far from the reference along world x
  double rtol = 1e-10;
  double atol = 1e-12;
  double max_step_s = 0.02;
};

class Mecanum3Backend final : public Backend, private dae::EventHandler {
 public:
  /// Starts on the reference pose (plus the offset) with the reference velocity, wheels and
  /// rollers at 0. Throws std::invalid_argument for an invalid configuration.
  Mecanum3Backend(const Mecanum3Config& config, double t0_s);
  ~Mecanum3Backend() override;

  const Mecanum3Config& config() const { return config_; }
  dae::IdaStats solver_stats() const { return solver_->stats(); }
  /// Contact-roller changes of wheel 0..2 so far.
  long switch_count(int wheel) const { return switch_count_[static_cast<std::size_t>(wheel)]; }

  /// State layout of the ODE (public for tests).
  static constexpr std::size_t kPose = 0;       ///< x, y [m], ϑ [rad] in W
  static constexpr std::size_t kXi = 3;         ///< v_x, v_y [m/s], Ω [rad/s] in B
  static constexpr std::size_t kWheel = 6;      ///< θ_1..3 [rad]
  static constexpr std::size_t kRollerSum = 9;  ///< ∫ contact-roller rate dt per wheel [rad]
  static constexpr std::size_t kWorkIn = 12;    ///< ∫ Σ τ·ω dt [J]
  static constexpr std::size_t kWorkLoss = 13;  ///< ∫ b_w·|Jξ|² dt [J]
  static constexpr std::size_t kStateCount = 14;

 private:
  class System;
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  /// A contact roller changes (bookkeeping only: the rest of IDA's step holds).
  AfterRoots on_roots(double t_s, std::span<const int> found) override;
  void write_state(double t_s, std::span<double> q, std::span<double> outputs) const;

  Mecanum3Config config_;
  std::unique_ptr<System> system_;
  std::unique_ptr<dae::IdaSolver> solver_;
  std::unique_ptr<dae::EventStepper> stepper_;
  std::array<double, kStateCount> y_{};
  std::array<double, kStateCount> yp_{};
  std::array<double, kStateCount> y_node_{};
  std::array<std::array<double, 12>, 3> roller_rad_{};  ///< roller angles at the last switch
  std::array<double, 3> roller_sum_at_switch_{};        ///< y[kRollerSum + i] at the last switch
  std::array<std::int64_t, 3> sector_{};
  std::array<long, 3> switch_count_{};
  double stored0_J_ = 0.0;
};

}  // namespace cosim::dynamics::mecanum3vw
