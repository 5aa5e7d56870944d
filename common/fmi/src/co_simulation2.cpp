// An FMI 2.0 co-simulation instance (instance.hpp; the functions of fmi2_api.hpp).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cosim/fmi/fmi2_api.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "instances.hpp"

namespace cosim::fmi::detail {

namespace fs = std::filesystem;

namespace {

// FMI 2.0 names the resources folder by a file URI (§2.1.6): file:///C:/x on Windows, file:///x
// elsewhere, every byte but the unreserved ones and '/' percent-encoded.
std::string file_uri(const fs::path& folder) {
  std::string path = platform::utf8(fs::absolute(folder));
  for (char& c : path) c = c == '\\' ? '/' : c;
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  std::string uri = "file://";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '.' || c == '_' || c == '~' || c == '/' || c == ':';
    if (plain) {
      uri += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", u);
      uri += hex;
    }
  }
  return uri;
}

class CoSimulation2 final : public Instance {
 public:
  CoSimulation2(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log)
      : Instance(folder, md, std::move(name), std::move(log)) {
    look_up(f_.instantiate, "fmi2Instantiate");
    look_up(f_.free_instance, "fmi2FreeInstance");
    look_up(f_.setup_experiment, "fmi2SetupExperiment");
    look_up(f_.enter_initialization, "fmi2EnterInitializationMode");
    look_up(f_.exit_initialization, "fmi2ExitInitializationMode");
    look_up(f_.terminate, "fmi2Terminate");
    look_up(f_.get_real, "fmi2GetReal");
    look_up(f_.set_real, "fmi2SetReal");
    look_up(f_.set_integer, "fmi2SetInteger");
    look_up(f_.set_boolean, "fmi2SetBoolean");
    look_up(f_.set_string, "fmi2SetString");
    look_up(f_.do_step, "fmi2DoStep");
    callbacks_ = {&CoSimulation2::on_log, &CoSimulation2::allocate, &CoSimulation2::release, nullptr, this};
    const std::string resources = file_uri(folder / "resources");
    instance_ = f_.instantiate(md.model_name.c_str(), fmi2::kCoSimulation, md.token.c_str(), resources.c_str(), &callbacks_,
                               0, log_ != nullptr ? 1 : 0);
    if (instance_ == nullptr) {
      throw util::BadInputError(name_ + ": fmi2Instantiate returned no instance" +
                                (last_message_.empty() ? std::string() : ": " + last_message_));
    }
  }
  ~CoSimulation2() override {
    if (initialised_ && !failed_) (void)f_.terminate(instance_);
    f_.free_instance(instance_);
  }

  void set_float64(std::span<const std::uint32_t> vrs, std::span<const double> values) override {
    check(f_.set_real(instance_, vrs.data(), vrs.size(), values.data()), "fmi2SetReal");
  }
  void set_int32(std::span<const std::uint32_t> vrs, std::span<const std::int32_t> values) override {
    check(f_.set_integer(instance_, vrs.data(), vrs.size(), values.data()), "fmi2SetInteger");
  }
  void set_boolean(std::span<const std::uint32_t> vrs, std::span<const bool> values) override {
    std::vector<fmi2::Boolean> as_int(values.begin(), values.end());  // fmi2Boolean is an int
    check(f_.set_boolean(instance_, vrs.data(), vrs.size(), as_int.data()), "fmi2SetBoolean");
  }
  void set_string(std::span<const std::uint32_t> vrs, std::span<const char* const> values) override {
    check(f_.set_string(instance_, vrs.data(), vrs.size(), values.data()), "fmi2SetString");
  }
  void get_float64(std::span<const std::uint32_t> vrs, std::span<double> values) override {
    check(f_.get_real(instance_, vrs.data(), vrs.size(), values.data()), "fmi2GetReal");
  }
  void enter_initialization_mode(double start_s, std::optional<double> stop_s, std::optional<double> tolerance) override {
    check(f_.setup_experiment(instance_, tolerance ? 1 : 0, tolerance.value_or(0.0), start_s, stop_s ? 1 : 0,
                              stop_s.value_or(0.0)),
          "fmi2SetupExperiment");
    check(f_.enter_initialization(instance_), "fmi2EnterInitializationMode");
    initialised_ = true;
  }
  void exit_initialization_mode() override { check(f_.exit_initialization(instance_), "fmi2ExitInitializationMode"); }
  void do_step(double t_s, double h_s) override { check(f_.do_step(instance_, t_s, h_s, 1), "fmi2DoStep", t_s); }

 private:
  // The logger's message is a printf format (FMI 2.0 §2.1.5).
  static void on_log(fmi2::ComponentEnvironment environment, fmi2::String, fmi2::Status status, fmi2::String category,
                     fmi2::String format, ...) {
    if (environment == nullptr) return;
    char text[1024] = "";
    if (format != nullptr) {
      va_list args;
      va_start(args, format);
      std::vsnprintf(text, sizeof text, format, args);
      va_end(args);
    }
    static_cast<CoSimulation2*>(environment)->message(status, category, text);
  }
  static void* allocate(std::size_t n, std::size_t size) { return std::calloc(n, size); }
  static void release(void* object) { std::free(object); }

  fmi2::CallbackFunctions callbacks_{};  // the FMU may keep a pointer to them: they live as long as it
  fmi2::Component instance_ = nullptr;
  bool initialised_ = false;
  struct {
    fmi2::Instantiate instantiate = nullptr;
    fmi2::FreeInstance free_instance = nullptr;
    fmi2::SetupExperiment setup_experiment = nullptr;
    fmi2::EnterInitializationMode enter_initialization = nullptr;
    fmi2::ExitInitializationMode exit_initialization = nullptr;
    fmi2::Terminate terminate = nullptr;
    fmi2::GetReal get_real = nullptr;
    fmi2::SetReal set_real = nullptr;
    fmi2::SetInteger set_integer = nullptr;
    fmi2::SetBoolean set_boolean = nullptr;
    fmi2::SetString set_string = nullptr;
    fmi2::DoStep do_step = nullptr;
  } f_;
};

}  // namespace

std::unique_ptr<Instance> make_fmi2(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log) {
  return std::make_unique<CoSimulation2>(folder, md, std::move(name), std::move(log));
}

}  // namespace cosim::fmi::detail
