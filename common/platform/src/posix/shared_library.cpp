#include "cosim/platform/shared_library.hpp"

#include <dlfcn.h>

#include "cosim/platform/paths.hpp"

namespace cosim::platform {

SharedLibrary::SharedLibrary(const std::filesystem::path& file) : file_(file) {
  // RTLD_NOW: a missing symbol of a dependency fails here; RTLD_LOCAL: the library's symbols
  // do not resolve another library's (two FMUs with the same function names).
  handle_ = ::dlopen(utf8(file).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    throw LibraryLoadError(utf8(file) + ": cannot load: " + (why != nullptr ? why : "unknown reason"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* SharedLibrary::symbol(const char* name) const noexcept { return ::dlsym(handle_, name); }

}  // namespace cosim::platform
