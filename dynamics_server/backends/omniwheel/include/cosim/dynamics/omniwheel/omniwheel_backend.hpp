#pragma once
/// @file
/// The `omniwheel` backend (seed 004): the omni-wheel test bench in free motion under gravity,
/// its servo-constraint and the floor. Kane's equations (OmniWheelModel) integrated by the DAE
/// kit's IdaSolver as an ODE; the roller in contact is an event state, changed at root-found
/// switches where the integrator restarts (for ψ ≠ 0 the contact point and the friction jump
/// there). Equations, parameters, results: MODEL.md.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cosim/dae/event_stepper.hpp"
#include "cosim/dae/ida_solver.hpp"
#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/omniwheel/omniwheel_model.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::omniwheel {

/// Declared parameters of `omniwheel`, each with its source.
std::span<const ParamSpec> omniwheel_param_specs();

/// Registry factory; throws ParamError naming the key for an invalid combination.
std::unique_ptr<Backend> make_omniwheel_backend(const Params& params, double t0_s);

/// Column indices into outputs().
namespace omniwheel_output {
inline constexpr std::size_t kRoller1Z = 0;          ///< roller1_z_m (the paper's Fig. 10)
inline constexpr std::size_t kRoller1Vz = 1;         ///< roller1_vz_m_per_s (Fig. 8)
inline constexpr std::size_t kRoller1Az = 2;         ///< roller1_az_m_per_s2 (Fig. 9)
inline constexpr std::size_t kContactRoller = 3;     ///< contact_roller, 1..n
inline constexpr std::size_t kContactAngle = 4;      ///< q_contact_rad
inline constexpr std::size_t kAxialOffset = 5;       ///< mu_axial_m: P = O − R·e_z + μ·a
inline constexpr std::size_t kPx = 6;                ///< px_m, contact point
inline constexpr std::size_t kPy = 7;                ///< py_m
inline constexpr std::size_t kSlip = 8;              ///< slip_m_per_s, |v_P|
inline constexpr std::size_t kFrictionX = 9;         ///< ft_x_N
inline constexpr std::size_t kFrictionY = 10;        ///< ft_y_N
inline constexpr std::size_t kNormal = 11;           ///< normal_N = M·g
inline constexpr std::size_t kNormalCheck = 12;      ///< normal_check_N = Σ m_b·(a_b,z + g)
inline constexpr std::size_t kServoTorque = 13;      ///< servo_torque_N_m, λ about e_f
inline constexpr std::size_t kResidualZ = 14;        ///< moment_residual_z_N_m
inline constexpr std::size_t kResidualAxle = 15;     ///< moment_residual_axle_N_m
inline constexpr std::size_t kTrackerIterations = 16;///< tracker_iterations (0: closed form)
inline constexpr std::size_t kEnergyIn = 17;         ///< energy_in_J, work of the external wrench
inline constexpr std::size_t kEnergyRes = 18;        ///< energy_resistive_J, dissipated by friction
inline constexpr std::size_t kEnergyStored = 19;     ///< energy_stored_J, kinetic + M·g·R
inline constexpr std::size_t kEnergyBalance = 20;    ///< energy_balance_J
inline constexpr std::size_t kRollerSwitches = 21;   ///< roller_switches, roller changes so far
inline constexpr std::size_t kOnEdge = 22;           ///< on_edge, 1 while the wheel stands on two tips
inline constexpr std::size_t kCount = 23;
}  // namespace omniwheel_output

/// Everything the backend is built from.
struct OmniWheelConfig {
  omniwheel::ModelParams model;
  std::array<double, 4> q0{};  ///< X, Y [m], χ, φ [rad] at t0
  std::array<double, 4> u0{1.0, 0.3, 0.5, 0.0};  ///< their rates (spec C.1: free motion)
  double rtol = 1e-8;
  double atol_position = 1e-10;  ///< m, rad
  double atol_speed = 1e-8;      ///< m/s, rad/s (and J for the energies)
  double max_step_s = 1e-3;
};

class OmniWheelBackend final : public Backend, private dae::EventHandler {
 public:
  OmniWheelBackend(const OmniWheelConfig& config, double t0_s);
  ~OmniWheelBackend() override;

  const OmniWheelConfig& config() const { return config_; }
  const omniwheel::OmniWheelModel& model() const { return model_; }
  dae::IdaStats solver_stats() const { return solver_->stats(); }
  long switch_count() const { return switch_count_; }
  /// Times the wheel came to stand on two roller tips (Filippov sliding at a switch).
  long edge_count() const { return edge_count_; }
  /// The last evaluation at the output time (accelerations, contact, reactions).
  const omniwheel::Evaluation& last() const { return eval_; }
  /// The state at the output time: q (4 + n), u (4 + n), then the two energy integrals.
  std::span<const double> state() const { return y_; }
  /// The roller in contact at the output time; on an edge, the first of the two.
  omniwheel::ContactRoller contact() const;
  /// On an edge at the output time: the second roller (else nullopt).
  std::optional<omniwheel::ContactRoller> edge_contact() const;

 private:
  class System;
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  /// A root at t_s: the roller in contact changes, or the wheel goes onto or off an edge; the
  /// contact point and the friction jump, so IDA restarts there.
  AfterRoots on_roots(double t_s, std::span<const int> found) override;
  void write_state(double t_s, std::span<double> q, std::span<double> outputs);

  OmniWheelConfig config_;
  omniwheel::OmniWheelModel model_;
  std::unique_ptr<System> system_;
  std::unique_ptr<dae::IdaSolver> solver_;
  std::unique_ptr<dae::EventStepper> stepper_;
  std::vector<double> y_, yp_, y_node_;
  omniwheel::Evaluation eval_;
  double stored0_J_ = 0.0;
  long switch_count_ = 0;
  long edge_count_ = 0;
};

}  // namespace cosim::dynamics::omniwheel
