#pragma once
/// @file
/// Backend `mecanum4`: seed 002's four-Mecanum-wheel platform on its 10 s manoeuvre, with the
/// roller-level wheel model (16 contact spheres per wheel) or the reduced one (a sphere on a
/// ball joint), on SUNDIALS IDA (dynamics_server/backends/mecanum4/MODEL.md).

#include <array>
#include <memory>
#include <span>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/dae/ida_solver.hpp"
#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/mecanum4/mecanum4_model.hpp"
#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics::mecanum4 {

std::span<const ParamSpec> mecanum4_param_specs();
std::unique_ptr<Backend> make_mecanum4_backend(const Params& params, double t0_s);

/// Output indices (mecanum4_output_names() order); per-wheel blocks of 7 start at kWheelBlock.
namespace mecanum4_output {
inline constexpr std::size_t kXRef = 0, kYRef = 1, kPhiRef = 2, kVxRef = 3, kVyRef = 4, kOmegaRef = 5;
inline constexpr std::size_t kVx = 6, kVy = 7, kOmega = 8;
inline constexpr std::size_t kWheelBlock = 9;  ///< omega{i}, omega_ref{i}, tau{i}, normal{i}, slip{i}, contacts{i}, susp{i}
inline constexpr std::size_t kPerWheel = 7;
inline constexpr std::size_t kCOmega = kWheelBlock + 4 * kPerWheel;  ///< c_omega_rad_per_s
inline constexpr std::size_t kAz = kCOmega + 1;                       ///< az_m_per_s2, chassis vertical acceleration
inline constexpr std::size_t kEnergyIn = kAz + 1;                     ///< energy_in_J: work of the drives
inline constexpr std::size_t kEnergyRes = kEnergyIn + 1;              ///< energy_resistive_J: all dissipation
inline constexpr std::size_t kEnergyStored = kEnergyRes + 1;          ///< energy_stored_J: kinetic + potential
inline constexpr std::size_t kEnergyBalance = kEnergyStored + 1;      ///< in − resistive − Δstored
inline constexpr std::size_t kFrictionLoss = kEnergyBalance + 1;      ///< dissipated_friction_J
inline constexpr std::size_t kDamperLoss = kFrictionLoss + 1;         ///< dissipated_dampers_J
inline constexpr std::size_t kContactLoss = kDamperLoss + 1;          ///< dissipated_contact_J
inline constexpr std::size_t kCount = kContactLoss + 1;
}  // namespace mecanum4_output

struct Mecanum4Config {
  mecanum4::ModelParams model;
  double rtol = 1e-6;
  double atol_position = 1e-7;  ///< m, rad
  double atol_speed = 1e-5;     ///< m/s, rad/s
  double atol_other = 1e-6;     ///< PI integrals [rad], energies [J]
  double max_step_s = 0.0;      ///< 0: 1e-3 s (rollers), 5e-3 s (reduced) (spec A.2.5)
};

class Mecanum4Backend final : public Backend {
 public:
  Mecanum4Backend(const Mecanum4Config& config, double t0_s);
  ~Mecanum4Backend() override;

  const mecanum4::Mecanum4Model& model() const { return model_; }
  dae::IdaStats solver_stats() const { return solver_->stats(); }
  /// The state at the output time (Mecanum4Model::state_size() layout).
  std::span<const double> state() const { return y_; }
  const mecanum4::Evaluation& last() const { return eval_; }

 private:
  class System;
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  void write_state(std::span<double> q, std::span<double> outputs);
  /// Display joints the model does not integrate (reduced: wheel angles, sphere attitude and
  /// the rollers in contact at their kinematic rate), by the trapezoid rule between outputs.
  void advance_display(double dt_s);

  Mecanum4Config config_;
  mecanum4::Mecanum4Model model_;
  std::unique_ptr<System> system_;
  std::unique_ptr<dae::IdaSolver> solver_;
  std::vector<double> y_, yp_;
  mecanum4::Evaluation eval_;
  double stored0_J_ = 0.0;
  double last_output_t_s_;
  // Display state and the rates at the last output.
  std::array<double, mecanum4::kWheels> wheel_angle_rad_{}, wheel_rate_{};
  std::vector<double> roller_angle_rad_, roller_rate_;
  std::array<Eigen::Quaterniond, mecanum4::kWheels> sphere_attitude_;
  std::array<Eigen::Vector3d, mecanum4::kWheels> sphere_rate_;
};

}  // namespace cosim::dynamics::mecanum4
