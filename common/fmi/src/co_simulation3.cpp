// An FMI 3.0 co-simulation instance (instance.hpp; the functions of fmi3_api.hpp).
#include <cstdio>

#include "cosim/fmi/fmi3_api.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "instances.hpp"

namespace cosim::fmi::detail {

namespace fs = std::filesystem;

namespace {

class CoSimulation3 final : public Instance {
 public:
  CoSimulation3(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log)
      : Instance(folder, md, std::move(name), std::move(log)) {
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
    std::error_code ec;
    std::string resources;
    if (fs::is_directory(folder / "resources", ec)) resources = platform::utf8(fs::absolute(folder / "resources")) + "/";
    instance_ = f_.instantiate(md.model_name.c_str(), md.token.c_str(), resources.empty() ? nullptr : resources.c_str(),
                               false, log_ != nullptr, false, false, nullptr, 0, this, &CoSimulation3::on_log, nullptr);
    if (instance_ == nullptr) {
      throw util::BadInputError(name_ + ": fmi3InstantiateCoSimulation returned no instance" +
                                (last_message_.empty() ? std::string() : ": " + last_message_));
    }
  }
  ~CoSimulation3() override {
    if (initialised_ && !failed_) (void)f_.terminate(instance_);
    f_.free_instance(instance_);
  }

  void set_float64(std::span<const std::uint32_t> vrs, std::span<const double> values) override {
    check(f_.set_float64(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetFloat64");
  }
  void set_int32(std::span<const std::uint32_t> vrs, std::span<const std::int32_t> values) override {
    check(f_.set_int32(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetInt32");
  }
  void set_boolean(std::span<const std::uint32_t> vrs, std::span<const bool> values) override {
    check(f_.set_boolean(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetBoolean");
  }
  void set_string(std::span<const std::uint32_t> vrs, std::span<const char* const> values) override {
    check(f_.set_string(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3SetString");
  }
  void get_float64(std::span<const std::uint32_t> vrs, std::span<double> values) override {
    check(f_.get_float64(instance_, vrs.data(), vrs.size(), values.data(), values.size()), "fmi3GetFloat64");
  }
  void enter_initialization_mode(double start_s, std::optional<double> stop_s, std::optional<double> tolerance) override {
    check(f_.enter_initialization(instance_, tolerance.has_value(), tolerance.value_or(0.0), start_s, stop_s.has_value(),
                                  stop_s.value_or(0.0)),
          "fmi3EnterInitializationMode");
    initialised_ = true;
  }
  void exit_initialization_mode() override {
    check(f_.exit_initialization(instance_), "fmi3ExitInitializationMode");
  }
  void do_step(double t_s, double h_s) override {
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

 private:
  static void on_log(fmi3::InstanceEnvironment environment, fmi3::Status status, fmi3::String category,
                     fmi3::String text) {
    if (environment != nullptr) static_cast<CoSimulation3*>(environment)->message(status, category, text);
  }

  fmi3::Instance instance_ = nullptr;
  bool initialised_ = false;
  struct {
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

}  // namespace

std::unique_ptr<Instance> make_fmi3(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log) {
  return std::make_unique<CoSimulation3>(folder, md, std::move(name), std::move(log));
}

}  // namespace cosim::fmi::detail
