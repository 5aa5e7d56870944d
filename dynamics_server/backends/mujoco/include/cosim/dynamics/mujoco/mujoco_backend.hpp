#pragma once
/// @file
/// The `mujoco` backend: an MJCF (or URDF) model stepped by MuJoCo at its own timestep, its
/// hinge, slide, free and ball joints mapped onto scene joints, its actuators driven from a
/// reference CSV. Mapping, stepping, actuation, instability: MODEL.md.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/params.hpp"

struct mjModel_;
struct mjData_;

namespace cosim::dynamics::mujoco {

/// Declared parameters of `mujoco`: `model` (path of the MJCF or URDF file) and `trajectory`
/// (path of a reference CSV, empty for none). Both text.
std::span<const ParamSpec> mujoco_param_specs();

/// Registry factory. Resolves the files (MODEL.md "Parameters") and throws ParamError for a
/// file that is missing or that MuJoCo cannot load, a model it cannot map (a ball joint, an
/// unnamed joint) or a bad reference CSV, each naming the file.
std::unique_ptr<Backend> make_mujoco_backend(const Params& params, double t0_s);

/// Column indices into MujocoBackend::outputs() (names in output_names()).
namespace mujoco_output {
inline constexpr std::size_t kContacts = 0;         ///< contacts: MuJoCo's d->ncon
inline constexpr std::size_t kKinetic = 1;          ///< energy_kinetic_J
inline constexpr std::size_t kPotential = 2;        ///< energy_potential_J: gravity and springs
inline constexpr std::size_t kTotal = 3;            ///< energy_total_J
inline constexpr std::size_t kCount = 4;  ///< then the model's controller's outputs, if any (MODEL.md §9)
}  // namespace mujoco_output

class ReferenceCsv;
class RobotinoRoseController;
struct JointMap;
struct LoadedMujocoModel;

/// One MuJoCo model and its data. MuJoCo steps at the model's own timestep h; advance_to(t)
/// steps until the last state reaches t and reports joint values and outputs interpolated
/// linearly between the last two states (exactly the last state when t falls on a step).
class MujocoBackend final : public Backend {
 public:
  /// Loads `model_file` (absolute or relative to the current folder; a URDF's package:// meshes
  /// in `package_path`, then $COSIM_PACKAGE_PATH). `reference_file` empty: no reference, ctrl
  /// stays 0. Throws ParamError as make_mujoco_backend does.
  MujocoBackend(const std::filesystem::path& model_file, const std::filesystem::path& reference_file, double t0_s,
                const std::vector<std::filesystem::path>& package_path = {});
  ~MujocoBackend() override;

  /// The model's timestep [s] (MuJoCo's m->opt.timestep).
  double timestep_s() const { return timestep_s_; }

 private:
  MujocoBackend(LoadedMujocoModel&& loaded, const std::filesystem::path& reference_file, double t0_s);

  /// The model at one MuJoCo state: scene joint values and outputs.
  struct Sample {
    std::vector<double> q;  // [m or rad], joint_names() order
    double kinetic_J = 0.0;
    double potential_J = 0.0;
    double contacts = 0.0;
    std::vector<double> controller;  // the model's controller's outputs, if it has one
  };

  void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) override;
  /// One mj_step from state steps_ (ctrl from the reference at its start); throws BackendError
  /// if MuJoCo warned that it reset the state, or the state is not finite.
  void step();
  /// Throws BackendError naming the warning or the bad value and the step [t_from_s, now].
  void check_step(double t_from_s) const;
  /// Throws ParamError naming the first non-finite value of the initial state (its keyframe).
  void check_initial_state() const;
  /// Fills `sample` from the current mjData (runs mj_forward for energy and contacts);
  /// angles unwrapped to lie within π of `near`.
  void take_sample(Sample& sample, std::span<const double> near);
  /// Outputs between the two samples, `back` steps before the latest one (0 ≤ back < 1).
  void write_outputs(double back, std::span<double> outputs) const;
  /// Reads the reference CSV and maps each column to the actuator it drives.
  void read_reference(const std::filesystem::path& file);
  /// Time of state number `k` [s].
  double state_time_s(std::int64_t k) const { return t0_s_ + static_cast<double>(k) * timestep_s_; }

  struct ModelDeleter {
    void operator()(mjModel_* m) const;
  };
  struct DataDeleter {
    void operator()(mjData_* d) const;
  };

  std::unique_ptr<mjModel_, ModelDeleter> model_;
  std::unique_ptr<mjData_, DataDeleter> data_;
  std::unique_ptr<const JointMap> joints_;
  std::unique_ptr<RobotinoRoseController> controller_;  // the model's own controller, or none
  std::unique_ptr<const ReferenceCsv> reference_;
  std::vector<int> reference_actuator_;  // per reference column: actuator index
  std::vector<double> reference_values_;  // per reference column, preallocated
  double t0_s_;
  double timestep_s_;
  std::int64_t steps_ = 0;
  Sample previous_;  // state steps_ - 1
  Sample latest_;    // state steps_
};

/// The run's natural length [s]: the reference CSV's last time when `trajectory` is given (a
/// CSV ending at or before 0: 10 s), else 10 s. Throws ParamError for a missing or bad CSV.
double mujoco_natural_duration_s(const Params& params);

/// The scene of a run without --scene: the model= file itself (drawn by the MJCF or URDF
/// scene reader), or empty for the default pendulum, which scenes/pendulum draws.
std::filesystem::path mujoco_model_scene(const Params& params);

}  // namespace cosim::dynamics::mujoco
