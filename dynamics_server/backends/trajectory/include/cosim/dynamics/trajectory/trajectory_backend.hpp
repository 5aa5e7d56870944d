#pragma once
/// @file
/// The `trajectory` backend: plays a joint CSV (JointTrajectory) for any scene, XML, URDF or
/// MJCF, and outputs the joint velocities the interpolation implies. No dynamics.

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/trajectory/joint_trajectory.hpp"

namespace cosim::dynamics::trajectory {

/// Declared parameters of `trajectory`: `trajectory` (path of the CSV; relative: the current
/// folder, then the scenes root), `interpolation` (linear | cubic), `loop` (0 | 1).
std::span<const ParamSpec> trajectory_param_specs();

/// Registry factory. Throws ParamError for a file not found or a bad CSV (JointTrajectory::read).
std::unique_ptr<Backend> make_trajectory_backend(const Params& params, double t0_s);

/// The run's natural length [s]: the CSV's last time (a run starts at 0; a looping CSV from 0:
/// one period), or its span if it ends before 0. Throws ParamError as make_trajectory_backend.
double trajectory_natural_duration_s(const Params& params);

/// Output name of a joint's velocity: "<joint>_rate_per_s", in the joint's unit per second
/// (m/s for a prismatic joint, rad/s for a revolute one; the backend does not know which).
std::string rate_output_name(const std::string& joint_name);

/// Joints = the CSV's columns (model = their common prefix); outputs = one rate per joint, same
/// order. Joint kinds unknown: the scene's drives decide m or rad.
class TrajectoryBackend final : public Backend {
 public:
  TrajectoryBackend(JointTrajectory trajectory, const std::filesystem::path& file, double t0_s);

  const JointTrajectory& trajectory() const { return trajectory_; }

 private:
  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;

  JointTrajectory trajectory_;
};

}  // namespace cosim::dynamics::trajectory
