// One FMI 3.0 co-simulation instance (co_simulation3.hpp).
#include "cosim/fmi/co_simulation3.hpp"

#include <cstdio>

#include "cosim/platform/paths.hpp"
#include "cosim/platform/shared_library.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {

namespace fs = std::filesystem;

const char* fmi3::status_name(Status status) {
  switch (status) {
    case kOK: return "OK";
    case kWarning: return "Warning";
    case kDiscard: return "Discard";
    case kError: return "Error";
    case kFatal: return "Fatal";
  }
  return "an unknown status";
}

fs::path fmi3_binary(const std::string& model_identifier) {
#ifdef _WIN32
  return fs::path("binaries") / "x86_64-windows" / (model_identifier + ".dll");
#else
  return fs::path("binaries") / "x86_64-linux" / (model_identifier + ".so");
#endif
}

void CoSimulation3::on_log(fmi3::InstanceEnvironment environment, fmi3::Status status, fmi3::String category,
                           fmi3::String message) {
  auto* self = static_cast<CoSimulation3*>(environment);
  if (self == nullptr) return;
  self->last_message_ = message != nullptr ? message : "";
  if (self->log_) self->log_(status, category != nullptr ? category : "", self->last_message_);
}

CoSimulation3::CoSimulation3(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log)
    : name_(std::move(name)), log_(std::move(log)) {
  if (md.version != FmiVersion::v3 || !md.co_simulation) {
    throw util::BadInputError(name_ + ": not an FMI 3.0 co-simulation FMU");
  }
  const fs::path binary = folder / fmi3_binary(md.co_simulation->model_identifier);
  std::error_code ec;
  if (!fs::is_regular_file(binary, ec)) {
    throw util::BadInputError(name_ + ": no " + platform::utf8(fmi3_binary(md.co_simulation->model_identifier)) +
                              " (the FMU has no binary for this platform)");
  }
  try {
    library_ = std::make_unique<platform::SharedLibrary>(binary);
  } catch (const platform::LibraryLoadError& e) {
    throw util::BadInputError(name_ + ": " + e.what());
  }
  const auto look_up = [&](auto& pointer, const char* function) {
    pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(library_->symbol(function));
    if (pointer == nullptr) {
      throw util::BadInputError(name_ + ": its binary exports no " + std::string(function) +
                                " (FMI 3.0 requires every function of the standard)");
    }
  };
  look_up(f_.instantiate, "fmi3InstantiateCoSimulation");
  look_up(f_.free_instance, "fmi3FreeInstance");
  look_up(f_.enter_initialization, "fmi3EnterInitializationMode");
  look_up(f_.exit_initialization, "fmi3ExitInitializationMode");
  look_up(f_.terminate, "fmi3Terminate");
  look_up(f_.get_float64, "fmi3GetFloat64");
  look_up(f_.set_float64, "fmi3SetFloat64");
  look_up(f_.set_int32, "fmi3SetInt32");
  look_up(f_.set_boolean, "fmi3SetBoolean");
  look_up(f_.set_string, "fmi3SetString");
  look_up(f_.do_step, "fmi3DoStep");

  // resourcePath: the resources folder with a trailing separator, or null without one.
  const fs::path resources = folder / "resources";
  std::string resource_path;
  if (fs::is_directory(resources, ec)) resource_path = platform::utf8(fs::absolute(resources)) + "/";
  instance_ = f_.instantiate(md.model_name.c_str(), md.token.c_str(), resource_path.empty() ? nullptr : resource_path.c_str(),
                             false, log_ != nullptr, false, false, nullptr, 0, this, &CoSimulation3::on_log, nullptr);
  if (instance_ == nullptr) {
    throw util::BadInputError(name_ + ": fmi3InstantiateCoSimulation returned no instance" +
                              (last_message_.empty() ? std::string() : ": " + last_message_));
  }
}

CoSimulation3::~CoSimulation3() {
  if (instance_ == nullptr) return;
  if (initialised_ && !failed_) (void)f_.terminate(instance_);
  f_.free_instance(instance_);
}

void CoSimulation3::check(fmi3::Status status, const char* function, std::optional<double> t_s) {
  if (status == fmi3::kOK || status == fmi3::kWarning) return;
  failed_ = status == fmi3::kError || status == fmi3::kFatal;
  std::string what = name_ + ": " + function;
  if (t_s) {
    char at[48];
    std::snprintf(at, sizeof at, " at t = %.9g s", *t_s);
    what += at;
  }
  what += std::string(" returned ") + fmi3::status_name(status) + (last_message_.empty() ? "" : ": " + last_message_);
  if (t_s) throw util::NumericalError(what);  // while running: a numerical failure of the model
  throw util::BadInputError(what);
}

void CoSimulation3::set_float64(std::span<const fmi3::ValueReference> vrs, std::span<const double> values) {
  check(f_.set_float64(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetFloat64");
}
void CoSimulation3::set_int32(std::span<const fmi3::ValueReference> vrs, std::span<const std::int32_t> values) {
  check(f_.set_int32(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetInt32");
}
void CoSimulation3::set_boolean(std::span<const fmi3::ValueReference> vrs, std::span<const bool> values) {
  check(f_.set_boolean(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetBoolean");
}
void CoSimulation3::set_string(std::span<const fmi3::ValueReference> vrs, std::span<const char* const> values) {
  check(f_.set_string(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetString");
}
void CoSimulation3::get_float64(std::span<const fmi3::ValueReference> vrs, std::span<double> values) {
  check(f_.get_float64(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3GetFloat64");
}

void CoSimulation3::enter_initialization_mode(double start_s, std::optional<double> stop_s, std::optional<double> tolerance) {
  check(f_.enter_initialization(instance_, tolerance.has_value(), tolerance.value_or(0.0), start_s, stop_s.has_value(),
                                stop_s.value_or(0.0)),
        "fmi3EnterInitializationMode");
  initialised_ = true;
}

void CoSimulation3::exit_initialization_mode() { check(f_.exit_initialization(instance_), "fmi3ExitInitializationMode"); }

void CoSimulation3::do_step(double t_s, double h_s) {
  fmi3::Boolean event_handling_needed = false, terminate = false, early_return = false;
  fmi3::Float64 last_successful = t_s;
  check(f_.do_step(instance_, t_s, h_s, true, &event_handling_needed, &terminate, &early_return, &last_successful),
        "fmi3DoStep", t_s);
  if (terminate) {
    char at[48];
    std::snprintf(at, sizeof at, "%.9g", t_s);
    throw util::NumericalError(name_ + ": fmi3DoStep at t = " + at + " s asked to terminate the simulation" +
                               (last_message_.empty() ? std::string() : ": " + last_message_));
  }
}

}  // namespace cosim::fmi
