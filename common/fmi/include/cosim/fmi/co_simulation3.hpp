#pragma once
/// @file
/// One instance of an FMI 3.0 co-simulation FMU: its binary loaded from the unpacked FMU,
/// every function it needs looked up first (a missing one named before anything runs),
/// instantiated with a log callback, initialised, stepped and read.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cosim/fmi/fmi3_api.hpp"
#include "cosim/fmi/model_description.hpp"

namespace cosim::platform {
class SharedLibrary;
}

namespace cosim::fmi {

/// Where the FMU's log messages go: its status, category and text.
using LogSink = std::function<void(fmi3::Status status, std::string_view category, std::string_view message)>;

/// The binary of `model_identifier` for this build's platform, relative to the unpacked FMU:
/// binaries/x86_64-linux/<id>.so, binaries/x86_64-windows/<id>.dll.
std::filesystem::path fmi3_binary(const std::string& model_identifier);

class CoSimulation3 {
 public:
  /// `folder`: the unpacked FMU; `md`: its model description (FMI 3.x, with CoSimulation);
  /// `name` names it in messages ("msd.fmu"). Throws util::BadInputError naming the FMU for a
  /// binary that is missing or does not load, a function it does not export, or an instance
  /// it refuses to create (with its last log message).
  CoSimulation3(const std::filesystem::path& folder, const ModelDescription& md, std::string name, LogSink log);
  ~CoSimulation3();
  CoSimulation3(const CoSimulation3&) = delete;
  CoSimulation3& operator=(const CoSimulation3&) = delete;

  void set_float64(std::span<const fmi3::ValueReference> vrs, std::span<const double> values);
  void set_int32(std::span<const fmi3::ValueReference> vrs, std::span<const std::int32_t> values);
  void set_boolean(std::span<const fmi3::ValueReference> vrs, std::span<const bool> values);
  void set_string(std::span<const fmi3::ValueReference> vrs, std::span<const char* const> values);
  void get_float64(std::span<const fmi3::ValueReference> vrs, std::span<double> values);

  void enter_initialization_mode(double start_s, std::optional<double> stop_s, std::optional<double> tolerance);
  void exit_initialization_mode();
  /// fmi3DoStep from `t_s` over `h_s`. Throws util::NumericalError naming the FMU, the time and
  /// its last log message when it returns Discard, Error or Fatal, or asks to terminate.
  void do_step(double t_s, double h_s);

 private:
  void check(fmi3::Status status, const char* function, std::optional<double> t_s = std::nullopt);
  static void on_log(fmi3::InstanceEnvironment environment, fmi3::Status status, fmi3::String category,
                     fmi3::String message);

  std::string name_;
  LogSink log_;
  std::string last_message_;
  std::unique_ptr<platform::SharedLibrary> library_;
  fmi3::Instance instance_ = nullptr;
  bool initialised_ = false, failed_ = false;
  struct Functions {
    fmi3::InstantiateCoSimulation instantiate = nullptr;
    fmi3::FreeInstance free_instance = nullptr;
    fmi3::EnterInitializationMode enter_initialization = nullptr;
    fmi3::ExitInitializationMode exit_initialization = nullptr;
    fmi3::Terminate terminate = nullptr;
    fmi3::GetFloat64 get_float64 = nullptr;
    fmi3::SetFloat64 set_float64 = nullptr;
    fmi3::SetInt32 set_int32 = nullptr;
    fmi3::SetBoolean set_boolean = nullptr;
    fmi3::SetString set_string = nullptr;
    fmi3::DoStep do_step = nullptr;
  } f_;
};

}  // namespace cosim::fmi
