#pragma once
/// @file
/// One instance of a co-simulation FMU, FMI 3.0 or 2.0 behind one interface: its binary loaded
/// from the unpacked FMU, every function it needs looked up first (a missing one named before
/// anything runs), instantiated with a log callback, initialised, stepped and read.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "cosim/fmi/model_description.hpp"

namespace cosim::platform {
class SharedLibrary;
}

namespace cosim::fmi {

/// Where the FMU's log messages go: its status ("OK", "Warning", "Error", …), category, text.
using LogSink = std::function<void(std::string_view status, std::string_view category, std::string_view message)>;

/// The binary of a co-simulation FMU for this build's platform, relative to the unpacked FMU:
/// FMI 3 binaries/x86_64-linux/<id>.so (x86_64-windows/<id>.dll), FMI 2 binaries/linux64/
/// (win64/).
std::filesystem::path binary_path(FmiVersion version, const std::string& model_identifier);

class Instance {
 public:
  virtual ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  virtual void set_float64(std::span<const std::uint32_t> vrs, std::span<const double> values) = 0;
  virtual void set_int32(std::span<const std::uint32_t> vrs, std::span<const std::int32_t> values) = 0;
  virtual void set_boolean(std::span<const std::uint32_t> vrs, std::span<const bool> values) = 0;
  virtual void set_string(std::span<const std::uint32_t> vrs, std::span<const char* const> values) = 0;
  virtual void get_float64(std::span<const std::uint32_t> vrs, std::span<double> values) = 0;

  virtual void enter_initialization_mode(double start_s, std::optional<double> stop_s, std::optional<double> tolerance) = 0;
  virtual void exit_initialization_mode() = 0;
  /// One communication step from `t_s` over `h_s`. Throws util::NumericalError naming the FMU,
  /// the time and its last log message when it returns Discard, Error or Fatal, or asks to
  /// terminate.
  virtual void do_step(double t_s, double h_s) = 0;

  /// The FMU's last log message ("" before any).
  const std::string& last_message() const { return last_message_; }

 protected:
  /// Loads `folder`/binary_path(...). Throws util::BadInputError naming the FMU (`name`) for a
  /// binary that is missing or does not load.
  Instance(const std::filesystem::path& folder, const ModelDescription& md, std::string name, LogSink log);

  /// The exported function `function` as a `Pointer`; throws util::BadInputError naming it.
  template <class Pointer>
  void look_up(Pointer& pointer, const char* function) {
    pointer = reinterpret_cast<Pointer>(symbol(function));
  }
  void* symbol(const char* function) const;
  /// A status from the FMU (0 OK, 1 Warning, 2 Discard, 3 Error, 4 Fatal, 5 Pending): returns
  /// for OK and Warning; otherwise throws util::NumericalError while stepping (t_s given),
  /// util::BadInputError before.
  void check(int status, const char* function, std::optional<double> t_s = std::nullopt);
  void message(int status, const char* category, const char* text);

  std::string name_;
  LogSink log_;
  std::string last_message_;
  bool failed_ = false;  // an Error or Fatal: no fmiTerminate on the way out

 private:
  std::unique_ptr<platform::SharedLibrary> library_;
};

/// The FMU's instance for its version (md.version), named `name` in messages. Throws
/// util::BadInputError for an FMU without co-simulation, a binary that is missing or does not
/// load, a function it does not export, or an instance it refuses (with its last log message).
std::unique_ptr<Instance> instantiate(const std::filesystem::path& folder, const ModelDescription& md, std::string name,
                                      LogSink log);

}  // namespace cosim::fmi
