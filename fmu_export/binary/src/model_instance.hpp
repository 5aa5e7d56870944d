#pragma once
// One instance of an exported backend behind the FMI functions (fmi3_functions.cpp,
// fmi2_functions.cpp): the backend named in the FMU's resources, its parameters as exported
// and as set before initialisation, stepped by the importer. Everything an FMI function does
// goes through `guarded`, the one place that catches.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/dynamics/backend.hpp"
#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/fmu_export/variables.hpp"

namespace cosim::fmu_export {

/// FMI's status codes: the same numbers in FMI 2.0 and 3.0.
enum class Status : int { ok = 0, warning = 1, discard = 2, error = 3, fatal = 4 };

/// The importer's log callback, adapted: status, category, message (one line).
using LogFunction = std::function<void(Status status, const char* category, const std::string& message)>;

class ModelInstance {
 public:
  /// Reads `resources`/cosim/backend.txt and parameters.params, builds the model once to know
  /// its variables and checks the importer's `token` against them. Throws util::BadInputError.
  ModelInstance(std::string name, const std::filesystem::path& resources, std::string_view token, LogFunction log);

  const std::string& name() const { return name_; }
  void set_logging(bool on) { logging_on_ = on; }

  void enter_initialization(double start_s);
  /// Builds the model from the parameters set (if any changed, or the start time is not 0).
  void exit_initialization();
  /// Advances from `t_s` (the model's time, to within rounding) by `h_s` > 0.
  void do_step(double t_s, double h_s);
  void terminate();
  /// Back to the state after instantiation: the exported parameters, time 0.
  void reset();

  void get_float64(std::span<const std::uint32_t> vrs, std::span<double> values) const;
  void set_float64(std::span<const std::uint32_t> vrs, std::span<const double> values);

  /// `function` failed with `why`: logged as an error; the instance takes no further step.
  void fail(const char* function, const std::string& why);
  /// To the importer's log: errors and warnings always, OK messages when logging is on.
  void log(Status status, const char* category, const std::string& message) const;
  bool logging_on() const { return logging_on_; }

 private:
  enum class State { instantiated, initialization, stepping, terminated, failed };
  void require(State expected, const char* what) const;
  std::unique_ptr<dynamics::Backend> build(double t0_s) const;
  const Variable& variable(std::uint32_t vr) const;

  std::string name_;
  LogFunction log_;
  bool logging_on_ = false;
  const dynamics::registry::BackendEntry* entry_ = nullptr;  // the backend's registry row
  ModelVariables table_;
  std::vector<double> parameters_, exported_parameters_;  // spec order
  bool parameters_changed_ = false;
  double start_s_ = 0.0;
  State state_ = State::instantiated;
  std::unique_ptr<dynamics::Backend> backend_;
};

/// Runs `body` for FMI function `function` of `instance`: OK when it returns, an Error status
/// (logged) for any exception, Fatal for one that is not a std::exception. Null: Error.
template <class Body>
Status guarded(ModelInstance* instance, const char* function, Body&& body) noexcept {
  if (instance == nullptr) return Status::error;
  try {
    body(*instance);
    return Status::ok;
  } catch (const std::exception& e) {
    try {
      instance->fail(function, e.what());
    } catch (...) {
    }
    return Status::error;
  } catch (...) {
    return Status::fatal;
  }
}

/// A function of the standard a cosim FMU does not offer: logged, Error.
Status unsupported(ModelInstance* instance, const char* function, const char* why) noexcept;

/// The folder an FMI 2 resource location names: "file:///abs/path" (or "file:/abs/path",
/// "file://localhost/abs/path"), percent-escapes decoded; on Windows "file:///C:/x" is C:/x.
/// Throws util::BadInputError for another scheme.
std::filesystem::path path_from_file_uri(std::string_view uri);

}  // namespace cosim::fmu_export
