#pragma once
/// @file
/// The Backend interface: one checked public entry point (advance_to) around a private virtual.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cosim/util/errors.hpp"

namespace cosim::dynamics {

/// Numerical failure inside a backend (a joint value or output became non-finite, a solver
/// gave up). The message names the backend, the first bad quantity and the time. A
/// cosim::util::NumericalError, so a process that lets it reach main() exits with 5.
class BackendError : public util::NumericalError {
 public:
  using NumericalError::NumericalError;
};

/// How a joint moves, as far as a backend knows: compared with the scene's drive where known.
enum class JointKind : std::uint8_t {
  unknown = 0,  ///< the backend does not say: only the name is matched
  revolute,     ///< a rotation [rad]
  prismatic,    ///< a translation [m]
};
/// "unknown", "revolute", "prismatic".
const char* joint_kind_name(JointKind kind);

/// A dynamics backend: a model whose joint values and outputs are known at time_s() and that
/// can be advanced to a later time. Non-copyable; owned through std::unique_ptr.
///
/// After advance_to() throws, the backend is in an unspecified state: stop using it.
class Backend {
 public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  /// Registry name, e.g. "kinematic".
  const std::string& name() const { return name_; }
  /// Model driven, e.g. "Robotino" (the Hello message's model name).
  const std::string& model_name() const { return model_name_; }
  /// Scoped scene joint names, in Frame order (e.g. "Robotino/Wheel_1/roller3").
  const std::vector<std::string>& joint_names() const { return joint_names_; }
  /// Each joint's kind, joint_names() order: JointKind::unknown unless the backend says
  /// (set_joint_kinds).
  std::span<const JointKind> joint_kinds() const { return joint_kinds_; }
  /// dynamics.csv column names after t_s, each with its unit ("x_m", "omega1_rad_per_s").
  const std::vector<std::string>& output_names() const { return output_names_; }
  /// The file the model was read from (e.g. an MJCF file), named in messages; empty for a
  /// model built into the backend.
  const std::string& model_file() const { return model_file_; }

  /// Current model time [s].
  double time_s() const { return time_s_; }
  /// Joint values at time_s(), joint_names() order [m or rad].
  std::span<const double> joint_values() const { return joint_values_; }
  /// Outputs at time_s(), output_names() order [units in the names].
  std::span<const double> outputs() const { return outputs_; }

  /// Index of a joint by name. Throws std::out_of_range naming it and listing the joints.
  std::size_t joint_index(std::string_view joint_name) const;
  /// Index of an output by name. Throws std::out_of_range naming it and listing the outputs.
  std::size_t output_index(std::string_view output_name) const;

  /// Advances the model to `t_s` [s].
  /// Throws std::invalid_argument (with both times) unless t_s is finite and > time_s().
  /// Throws BackendError naming the first non-finite joint value or output (and t_s) after
  /// the step. A backend's own numerical failures (a solver giving up, e.g.
  /// cosim::dae::SolverError) are cosim::util::NumericalError too and pass through unchanged.
  /// Does not allocate on success (the state is preallocated).
  void advance_to(double t_s);

  /// Asked by a backend that takes many steps of its own inside one advance_to() (a small
  /// MuJoCo timestep), so that a stop signal ends the run within a frame, not after it. The
  /// session sets it (wire::stop_requested); null: never asked.
  using InterruptCheck = bool (*)() noexcept;
  void set_interrupt_check(InterruptCheck check) { interrupt_check_ = check; }

  /// True for a model whose code is not cosim's (an FMU's binary): it may crash the process
  /// rather than throw, so the run keeps its tables on disk after every frame.
  bool runs_foreign_code() const { return runs_foreign_code_; }

  /// Where the model's own messages go, one line each (an FMU's log): the run's event log
  /// (dynamics.log). Those said before a sink is set (while the model was made) are given to
  /// it at once; without a sink they are kept, up to kKeptMessages.
  using MessageSink = std::function<void(std::string_view line)>;
  void set_message_sink(MessageSink sink);
  static constexpr std::size_t kKeptMessages = 1000;

 protected:
  /// Sizes the state; joint values start at 0 and outputs at NaN, so a derived constructor
  /// that forgets to set an output is caught by the first finiteness check.
  /// Throws std::invalid_argument for an empty or duplicate joint name list, duplicate output
  /// names, or a non-finite t0_s.
  Backend(std::string name, std::string model_name, std::vector<std::string> joint_names,
          std::vector<std::string> output_names, double t0_s);

  /// For the derived constructor's initial state.
  std::span<double> mutable_joint_values() { return joint_values_; }
  /// For the derived constructor's initial outputs.
  std::span<double> mutable_outputs() { return outputs_; }
  /// For a derived constructor that knows its joints' kinds (e.g. from its model file).
  /// Throws std::invalid_argument unless there is one per joint.
  void set_joint_kinds(std::vector<JointKind> kinds);
  /// For a derived constructor that reads its model from a file.
  void set_model_file(std::string file) { model_file_ = std::move(file); }
  /// Throws util::InterruptedError naming `t_s` [s] (the model's time reached) once the
  /// interrupt check says so. For a backend's inner loop: cheap, but not every step.
  void throw_if_interrupted(double t_s) const;
  /// For a derived constructor that runs code not compiled with cosim (runs_foreign_code).
  void set_runs_foreign_code() { runs_foreign_code_ = true; }
  /// One line of the model's own (set_message_sink). Allocates: not for every step.
  void say(std::string line);

 private:
  /// Advances from time_s() to t_s (> time_s(), finite), updating `q` (joint values) and
  /// `outputs` in place. Must not allocate. May throw BackendError or another
  /// cosim::util::NumericalError for a numerical failure.
  virtual void do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) = 0;

  /// Throws BackendError if any joint value or output is not finite.
  void check_finite(double t_from_s) const;

  std::string name_;
  std::string model_name_;
  std::string model_file_;
  std::vector<std::string> joint_names_;
  std::vector<JointKind> joint_kinds_;  // joint_names_ order
  std::vector<std::string> output_names_;
  double time_s_;
  std::vector<double> joint_values_;
  std::vector<double> outputs_;
  InterruptCheck interrupt_check_ = nullptr;
  bool runs_foreign_code_ = false;
  MessageSink message_sink_;
  std::vector<std::string> kept_messages_;  // said before the sink was set
  std::size_t dropped_messages_ = 0;        // beyond kKeptMessages
};

}  // namespace cosim::dynamics
