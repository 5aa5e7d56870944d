// What both versions' instances share (instance.hpp): the binary, the functions looked up, the
// statuses turned into errors that name the FMU and carry its last message.
#include "cosim/fmi/instance.hpp"

#include <algorithm>
#include <cstdio>

#include "cosim/platform/paths.hpp"
#include "cosim/platform/shared_library.hpp"
#include "cosim/util/errors.hpp"
#include "instances.hpp"

namespace cosim::fmi {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStatusNames[] = {"OK", "Warning", "Discard", "Error", "Fatal", "Pending"};

const char* status_name(int status) {
  return status >= 0 && status < 6 ? kStatusNames[status] : "an unknown status";
}

}  // namespace

fs::path binary_path(FmiVersion version, const std::string& model_identifier) {
#ifdef _WIN32
  return fs::path("binaries") / (version == FmiVersion::v3 ? "x86_64-windows" : "win64") / (model_identifier + ".dll");
#else
  return fs::path("binaries") / (version == FmiVersion::v3 ? "x86_64-linux" : "linux64") / (model_identifier + ".so");
#endif
}

Instance::Instance(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log)
    : name_(std::move(name)), log_(std::move(log)) {
  if (!md.co_simulation) throw util::BadInputError(name_ + ": no CoSimulation element: not a co-simulation FMU");
  const fs::path relative = binary_path(md.version, md.co_simulation->model_identifier);
  std::error_code ec;
  if (!fs::is_regular_file(folder / relative, ec)) {
    std::string shown = platform::utf8(relative);  // as the FMU's zip names it, '/'-separated
    std::replace(shown.begin(), shown.end(), '\\', '/');
    throw util::BadInputError(name_ + ": no " + shown + " (the FMU has no binary for this platform)");
  }
  try {
    library_ = std::make_unique<platform::SharedLibrary>(folder / relative);
  } catch (const platform::LibraryLoadError& e) {
    throw util::BadInputError(name_ + ": " + e.what());
  }
}

Instance::~Instance() = default;

void* Instance::symbol(const char* function) const {
  void* address = library_->symbol(function);
  if (address == nullptr) {
    throw util::BadInputError(name_ + ": its binary exports no " + std::string(function) +
                              " (the standard requires every one of its functions)");
  }
  return address;
}

void Instance::message(int status, const char* category, const char* text) {
  last_message_ = text != nullptr ? text : "";
  // It ends error lines (check()): one line, whatever the FMU wrote.
  for (char& c : last_message_) c = static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  if (log_) log_(status_name(status), category != nullptr ? category : "", last_message_);
}

void Instance::check(int status, const char* function, std::optional<double> t_s) {
  if (status == 0 || status == 1) return;  // OK, Warning
  failed_ = status != 2;                   // all but Discard leave the FMU unusable
  std::string what = name_ + ": " + function;
  if (t_s) {
    char at[48];
    std::snprintf(at, sizeof at, " at t = %.9g s", *t_s);
    what += at;
  }
  what += std::string(" returned ") + status_name(status) + (last_message_.empty() ? "" : ": " + last_message_);
  if (t_s) throw util::NumericalError(what);  // while running: a numerical failure of the model
  throw util::BadInputError(what);
}

std::unique_ptr<Instance> instantiate(const fs::path& folder, const ModelDescription& md, std::string name, LogSink log) {
  return md.version == FmiVersion::v3 ? detail::make_fmi3(folder, md, std::move(name), std::move(log))
                                      : detail::make_fmi2(folder, md, std::move(name), std::move(log));
}

}  // namespace cosim::fmi
