#include "cosim/dynamics/trajectory/trajectory_backend.hpp"

#include <utility>
#include <vector>

#include "cosim/scene/scene_locator.hpp"

namespace cosim::dynamics::trajectory {
namespace fs = std::filesystem;
namespace {

constexpr const char* kDefaultTrajectory = "robotino/trajectories/circle.csv";

std::vector<std::string> rate_output_names(const std::vector<std::string>& joints) {
  std::vector<std::string> names;
  names.reserve(joints.size());
  for (const std::string& joint : joints) names.push_back(rate_output_name(joint));
  return names;
}

/// The `trajectory` CSV: as the mujoco backend's model=, absolute; relative, the current folder,
/// then the scenes root.
fs::path trajectory_file(const Params& params) {
  return params.input_file("trajectory", "trajectory CSV", &scene::input_file_candidates);
}

JointTrajectory read_trajectory(const Params& params, const fs::path& file) {
  const auto interpolation = params.get_choice("interpolation") == 1 ? Interpolation::cubic : Interpolation::linear;
  return JointTrajectory::read(file, interpolation, params.get("loop") != 0.0);
}

}  // namespace

std::string rate_output_name(const std::string& joint_name) { return joint_name + "_rate_per_s"; }

std::span<const ParamSpec> trajectory_param_specs() {
  static const std::vector<ParamSpec> specs{
      text_param_spec("trajectory", kDefaultTrajectory, "path",
                      "joint CSV 't_s,<Model/joint>,...' (SI, angles in rad); relative: the current folder, "
                      "then the scenes root",
                      "assumption: an example, the Robotino driving a circle of radius 0.5 m in 20 s "
                      "(scenes/robotino/trajectories/circle.csv)"),
      {"interpolation", 0.0, 0.0, 1.0, "1",
       "between rows: linear (segment slopes) or cubic (natural cubic spline through every row)", "assumption",
       {"linear", "cubic"}},
      {"loop", 0.0, 0.0, 1.0, "1",
       "1: after the last row start again from the first, time shifted by the CSV's span; 0: hold the last row",
       "assumption"},
  };
  return specs;
}

std::unique_ptr<Backend> make_trajectory_backend(const Params& params, double t0_s) {
  const fs::path file = trajectory_file(params);
  return std::make_unique<TrajectoryBackend>(read_trajectory(params, file), file, t0_s);
}

double trajectory_natural_duration_s(const Params& params) {
  const JointTrajectory trajectory = read_trajectory(params, trajectory_file(params));
  const std::span<const double> times = trajectory.times_s();
  // A run starts at t = 0 and plays up to the last row (a looping CSV from 0: one period); a
  // CSV that ends before 0 lasts its span.
  return times.back() > 0.0 ? times.back() : times.back() - times.front();
}

TrajectoryBackend::TrajectoryBackend(JointTrajectory trajectory, const fs::path& file, double t0_s)
    : Backend("trajectory", trajectory.model_name(), trajectory.joint_names(),
              rate_output_names(trajectory.joint_names()), t0_s),
      trajectory_(std::move(trajectory)) {
  set_model_file(file.string());
  trajectory_.sample(t0_s, mutable_joint_values(), mutable_outputs());
}

void TrajectoryBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  trajectory_.sample(t_s, q, outputs);  // outputs are the rates, joint order
}

}  // namespace cosim::dynamics::trajectory
