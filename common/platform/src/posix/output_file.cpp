#include "cosim/platform/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace cosim::platform {
namespace {
std::error_code last_error() { return {errno, std::generic_category()}; }
}  // namespace

OutputFile::OutputFile(const std::filesystem::path& path, Open how) {
  // O_NOFOLLOW: a link planted where an output file goes (a shared run folder) is refused
  // (ELOOP), never written through to its target.
  const int flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (how == Open::create_or_truncate ? O_CREAT | O_TRUNC : 0);
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    error_ = last_error();
  } else {
    handle_ = fd;
  }
}

OutputFile::~OutputFile() {
  if (handle_ >= 0) ::close(static_cast<int>(handle_));
}

std::error_code OutputFile::write_at(std::string_view bytes, std::uint64_t offset_bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(static_cast<int>(handle_), bytes.data(), bytes.size(), static_cast<off_t>(offset_bytes));
    if (n < 0) {
      if (errno == EINTR) continue;
      return last_error();
    }
    if (n == 0) return std::make_error_code(std::errc::no_space_on_device);
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset_bytes += static_cast<std::uint64_t>(n);
  }
  return {};
}

std::error_code OutputFile::truncate(std::uint64_t size_bytes) noexcept {
  if (::ftruncate(static_cast<int>(handle_), static_cast<off_t>(size_bytes)) != 0) return last_error();
  return {};
}

std::string error_text(std::error_code error) {
  // What O_NOFOLLOW says about a link in the last place of a path.
  if (error.value() == ELOOP) return "a symbolic link (cosim writes no file through a link)";
  return std::strerror(error.value());
}

}  // namespace cosim::platform

namespace cosim::platform {

std::FILE* open_file(const std::filesystem::path& path, const char* mode) {
  const std::string_view how(mode);
  if (how.starts_with('r')) {
    const std::string with_cloexec = std::string(mode) + "e";  // glibc: O_CLOEXEC
    return std::fopen(path.c_str(), with_cloexec.c_str());
  }
  // Written: as OutputFile, never through a link (ELOOP).
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (how.starts_with('a') ? O_APPEND : O_TRUNC);
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, mode);
  if (file == nullptr) {
    const int error = errno;
    ::close(fd);
    errno = error;
  }
  return file;
}

}  // namespace cosim::platform
