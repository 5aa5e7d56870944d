// One exported backend behind the FMI functions (model_instance.hpp).
#include "model_instance.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "cosim/dynamics/params.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::fmu_export {

namespace fs = std::filesystem;
namespace registry = dynamics::registry;

namespace {

// A communication point this close to the model's time is the model's time: an importer that
// adds its steps up is off by a few ulps per step (5000 steps of 0.01 s: ~1e-11 s).
constexpr double kTimeMatchRelative = 1e-9;

std::string read_small_file(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || size > dynamics::kMaxParamFileBytes) {
    throw util::BadInputError(platform::utf8(file) + ": missing or too large (the FMU's resources are incomplete)");
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw util::BadInputError(platform::utf8(file) + ": cannot read");
  return text.str();
}

}  // namespace

ModelInstance::ModelInstance(std::string name, const fs::path& resources, std::string_view token, LogFunction log)
    : name_(std::move(name)), log_(std::move(log)) {
  const fs::path folder = resources / "cosim";
  const std::string backend_name(util::trim(read_small_file(folder / "backend.txt")));
  const registry::BackendEntry* entry = nullptr;
  for (const registry::BackendEntry& e : registry::backend_registry()) {
    if (e.name == backend_name) entry = &e;
  }
  if (entry == nullptr) {
    throw util::BadInputError(platform::utf8(folder / "backend.txt") + ": backend '" + util::printable(backend_name) +
                              "' is not in this binary");
  }
  entry_ = entry;
  const fs::path params_file = folder / "parameters.params";
  const dynamics::Params params = dynamics::Params::resolve(entry->name, entry->param_specs(), &params_file, {});
  backend_ = entry->make(params, 0.0);
  table_ = model_variables(entry->name, entry->param_specs(), params, *backend_);
  exported_parameters_ = parameters_ = table_.parameter_starts();
  if (const std::string mine = instantiation_token(table_); token != mine) {
    throw util::BadInputError("instantiation token '" + util::printable(token) + "' is not this model's '" + mine +
                              "' (a modelDescription.xml from another export)");
  }
}

void ModelInstance::log(Status status, const char* category, const std::string& message) const {
  if (status == Status::ok && !logging_on_) return;
  if (log_) log_(status, category, message);
}

void ModelInstance::fail(const char* function, const std::string& why) {
  if (state_ == State::stepping || state_ == State::initialization) state_ = State::failed;
  log(Status::error, "logStatusError", std::string(function) + ": " + why);
}

void ModelInstance::require(State expected, const char* what) const {
  static constexpr const char* kNames[] = {"instantiated", "initialization mode", "step mode", "terminated",
                                           "failed (an earlier call returned Error)"};
  if (state_ != expected) {
    throw std::logic_error(std::string("not allowed in state '") + kNames[static_cast<int>(state_)] + "' (" + what +
                           " needs '" + kNames[static_cast<int>(expected)] + "')");
  }
}

std::unique_ptr<dynamics::Backend> ModelInstance::build(double t0_s) const {
  const registry::BackendEntry& entry = *entry_;
  const std::vector<std::string> overrides = parameter_overrides(table_, parameters_);
  const dynamics::Params params = dynamics::Params::resolve(entry.name, entry.param_specs(), nullptr, overrides);
  auto backend = entry.make(params, t0_s);
  if (backend->joint_names() != backend_->joint_names() || backend->output_names() != backend_->output_names()) {
    throw util::BadInputError("the parameters set change the model's joints or outputs (a structural parameter): "
                              "export the FMU with them instead (cosim-fmu export --param KEY=VALUE)");
  }
  return backend;
}

void ModelInstance::enter_initialization(double start_s) {
  require(State::instantiated, "entering initialization mode");
  if (!std::isfinite(start_s)) throw std::invalid_argument("start time is not finite");
  start_s_ = start_s;
  state_ = State::initialization;
}

void ModelInstance::exit_initialization() {
  require(State::initialization, "exiting initialization mode");
  if (parameters_changed_ || start_s_ != backend_->time_s()) backend_ = build(start_s_);
  state_ = State::stepping;
  log(Status::ok, "logEvents", util::format("initialised at t = %g s", start_s_));
}

void ModelInstance::do_step(double t_s, double h_s) {
  require(State::stepping, "a step");
  const double now = backend_->time_s();
  if (!(h_s > 0.0) || !std::isfinite(h_s)) throw std::invalid_argument(util::format("step size %g s is not > 0", h_s));
  if (!(std::abs(t_s - now) <= kTimeMatchRelative * std::max(1.0, std::abs(now)))) {
    throw std::invalid_argument(util::format("communication point %.17g s is not the model's time %.17g s (a cosim "
                                             "FMU steps forward only: canGetAndSetFMUState is false)",
                                             t_s, now));
  }
  backend_->advance_to(t_s + h_s);
}

void ModelInstance::terminate() {
  if (state_ != State::stepping && state_ != State::failed && state_ != State::initialization) {
    require(State::stepping, "terminating");
  }
  state_ = State::terminated;
}

void ModelInstance::reset() {
  parameters_ = exported_parameters_;
  parameters_changed_ = false;
  start_s_ = 0.0;
  backend_ = build(0.0);
  state_ = State::instantiated;
}

const Variable& ModelInstance::variable(std::uint32_t vr) const {
  if (vr >= table_.variables.size()) {
    throw std::out_of_range("value reference " + std::to_string(vr) + " is no variable of " + table_.backend + " (0 to " +
                            std::to_string(table_.variables.size() - 1) + ")");
  }
  return table_.variables[vr];
}

void ModelInstance::get_float64(std::span<const std::uint32_t> vrs, std::span<double> values) const {
  if (values.size() != vrs.size()) throw std::invalid_argument("one value per value reference expected");
  for (std::size_t i = 0; i < vrs.size(); ++i) {
    const Variable& v = variable(vrs[i]);
    switch (v.source) {
      case Source::time: values[i] = state_ == State::initialization ? start_s_ : backend_->time_s(); break;
      case Source::parameter: values[i] = parameters_[v.index]; break;
      case Source::joint: values[i] = backend_->joint_values()[v.index]; break;
      case Source::output: values[i] = backend_->outputs()[v.index]; break;
    }
  }
}

void ModelInstance::set_float64(std::span<const std::uint32_t> vrs, std::span<const double> values) {
  if (values.size() != vrs.size()) throw std::invalid_argument("one value per value reference expected");
  if (state_ != State::instantiated && state_ != State::initialization) {
    throw std::logic_error("parameters are fixed once initialised (variability fixed)");
  }
  for (std::size_t i = 0; i < vrs.size(); ++i) {
    const Variable& v = variable(vrs[i]);
    if (v.source != Source::parameter) {
      throw std::invalid_argument("'" + v.name + "' (value reference " + std::to_string(v.vr) + ") is not a parameter");
    }
    if (!(values[i] >= v.min && values[i] <= v.max)) {
      throw std::invalid_argument("'" + v.name + "' = " + util::format("%g is outside [%g, %g] ", values[i], v.min, v.max) +
                                  v.unit);
    }
  }
  for (std::size_t i = 0; i < vrs.size(); ++i) {
    const Variable& v = table_.variables[vrs[i]];
    if (parameters_[v.index] != values[i]) parameters_changed_ = true;
    parameters_[v.index] = values[i];
  }
}

Status unsupported(ModelInstance* instance, const char* function, const char* why) noexcept {
  if (instance != nullptr) {
    try {
      instance->log(Status::error, "logStatusError", std::string(function) + ": not supported by cosim FMUs (" + why + ")");
    } catch (...) {
    }
  }
  return Status::error;
}

fs::path path_from_file_uri(std::string_view uri) {
  std::string_view rest;
  if (uri.rfind("file://localhost/", 0) == 0) {
    rest = uri.substr(16);
  } else if (uri.rfind("file:///", 0) == 0) {
    rest = uri.substr(7);
  } else if (uri.rfind("file:/", 0) == 0) {
    rest = uri.substr(5);
  } else {
    throw util::BadInputError("resource location '" + util::printable(uri) + "' is no file URI (file:///...)");
  }
  std::string path;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      path += static_cast<char>(std::stoi(std::string(rest.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      path += rest[i];
    }
  }
#ifdef _WIN32
  // "/C:/x" -> "C:/x"
  if (path.size() >= 3 && path[0] == '/' && path[2] == ':') path.erase(0, 1);
#endif
  return platform::path_from_utf8(path);
}

}  // namespace cosim::fmu_export
