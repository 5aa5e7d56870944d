#include "cosim/platform/shared_library.hpp"

#include <windows.h>

#include "cosim/platform/paths.hpp"

namespace cosim::platform {

SharedLibrary::SharedLibrary(const std::filesystem::path& file) : file_(file) {
  // The library's own folder is searched for the DLLs it needs (an FMU may ship some beside it).
  const std::filesystem::path absolute = std::filesystem::absolute(file);
  handle_ = ::LoadLibraryExW(absolute.wstring().c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  if (handle_ == nullptr) {
    const DWORD code = ::GetLastError();
    char text[512] = "";
    ::FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code, 0, text, sizeof text, nullptr);
    std::string why = text;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r' || why.back() == ' ')) why.pop_back();
    throw LibraryLoadError(utf8(file) + ": cannot load: " + (why.empty() ? "error " + std::to_string(code) : why));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) ::FreeLibrary(static_cast<HMODULE>(handle_));
}

void* SharedLibrary::symbol(const char* name) const noexcept {
  return reinterpret_cast<void*>(::GetProcAddress(static_cast<HMODULE>(handle_), name));
}

}  // namespace cosim::platform
