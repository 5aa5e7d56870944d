#pragma once
/// \file
/// A shared library loaded at run time (an FMU's binary): dlopen on POSIX, LoadLibraryExW on
/// Windows (with the library's own folder searched for the libraries it needs).

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cosim::platform {

/// Thrown when a library cannot be loaded: the system's own words (dlerror, GetLastError).
class LibraryLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SharedLibrary {
 public:
  /// Loads `file` with every symbol bound now (a missing dependency fails here, not mid-run)
  /// and kept local to it. Throws LibraryLoadError "<file>: <why>".
  explicit SharedLibrary(const std::filesystem::path& file);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  /// The address of an exported function, or null when the library has none of that name.
  void* symbol(const char* name) const noexcept;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  void* handle_ = nullptr;
};

}  // namespace cosim::platform
