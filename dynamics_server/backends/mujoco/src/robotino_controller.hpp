#pragma once
/// @file
/// The robotino backend's drives on a MuJoCo Robotino (MODEL.md §9): the rose reference, eq. 22
/// for the wheel speeds, PID with feed-forward on the motor speed error, the voltage limit with
/// anti-windup, the DC motor and the −1/N reducer (robotino MODEL.md §2), in discrete time at
/// MuJoCo's step. A model asks for it with <custom><text name="cosim.controller"
/// data="robotino_rose"/>; its parameters are <numeric name="cosim.robotino.KEY"> fields, the
/// robotino backend's keys (defaults where a key is absent), as cosim-robotino-mjcf writes them.

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "cosim/dynamics/robotino_common/robotino_drive.hpp"

namespace cosim::dynamics::mujoco {
using reference::RoseParams;
using reference::RoseReference;


class RobotinoRoseController {
 public:
  /// The controller `m` asks for, or nullptr if it names none. Throws ParamError (naming
  /// `file`) for an unknown controller, a bad or unknown parameter, or a joint or actuator it
  /// needs that the model lacks: joints x, y, phi, axle1..3, motors drive1..3 on the axles.
  static std::unique_ptr<RobotinoRoseController> from_model(const mjModel* m, const std::string& file);

  /// Output columns it adds to the backend's (its write_outputs order).
  static std::vector<std::string> output_names();

  /// Puts the robot on the reference at t0_s: the pose, and with start_moving the reference
  /// velocity (wheels and contact rollers rolling without slip); currents and integrals 0.
  void start(const mjModel* m, mjData* d, double t0_s);
  /// Sets the drive torques for the step [t_s, t_s + h_s] from the state in `d`, and advances
  /// the currents (exactly, for the voltage and speed held over the step) and PID integrals to
  /// its end. Does not allocate.
  void control(const mjModel* m, mjData* d, double t_s, double h_s);
  /// Its outputs for the state in `d` at t_s (output_names() order).
  void write_outputs(const mjModel* m, const mjData* d, double t_s, std::span<double> out) const;

 private:
  RobotinoRoseController(const robotino_common::ModelParams& params, const RoseParams& rose, bool start_moving);

  /// Measured heading φ [rad] and chassis velocity (Ẋ, Ẏ, Ω) from the state.
  struct Chassis {
    double x_m, y_m, phi_rad, vx_m_per_s, vy_m_per_s, omega_rad_per_s;
  };
  Chassis chassis(const mjModel* m, const mjData* d) const;
  /// Wheel i's axle direction (cos, sin) with the heading the PID uses, and its reference
  /// speed (eq. 22).
  struct Axle {
    double cos_phi, sin_phi;
    robotino_common::WheelReference reference;
  };
  Axle axle(int i, const robotino_common::ReferenceState& ref, const Chassis& c) const;

  struct Drive {
    double current_A = 0.0;     // armature current at the state's time
    double integral_rad = 0.0;  // E = ∫ e dt (motor side)
    double error_rad_per_s = 0.0;  // e at the last control call, for the derivative
    double voltage_V = 0.0;     // applied over the last step
  };

  robotino_common::ModelParams p_;
  RoseReference rose_;
  bool start_moving_;
  robotino_common::DriveConstants drive_;
  int x_adr_ = -1, y_adr_ = -1, phi_adr_ = -1;        // qpos addresses
  int vx_adr_ = -1, vy_adr_ = -1, vphi_adr_ = -1;     // qvel addresses
  std::array<int, 3> axle_qpos_{}, axle_qvel_{}, motor_{};  // motor_: actuator ids
  std::array<int, 3> contact_roller_qvel_{};  // roller 1 of each wheel (in contact at θ = 0)
  std::array<Drive, 3> drives_{};
  bool first_step_ = true;
};

}  // namespace cosim::dynamics::mujoco
