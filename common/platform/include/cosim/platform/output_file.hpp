#pragma once
/// \file
/// A file written at explicit offsets (no shared file position) and cut back to a length:
/// what util::RecordFile needs to keep only whole records after a failed write.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace cosim::platform {

class OutputFile {
 public:
  enum class Open { create_or_truncate, existing };

  /// Opens `path` for writing; check ok() / error(). Not inherited by child processes.
  OutputFile(const std::filesystem::path& path, Open how);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool ok() const noexcept { return !error_; }
  /// Why opening failed.
  std::error_code error() const noexcept { return error_; }

  /// Writes all of `bytes` at `offset_bytes`; a full disk is std::errc::no_space_on_device.
  std::error_code write_at(std::string_view bytes, std::uint64_t offset_bytes) noexcept;
  /// Sets the file's length to `size_bytes`.
  std::error_code truncate(std::uint64_t size_bytes) noexcept;

 private:
  std::intptr_t handle_ = -1;  // fd on POSIX, HANDLE on Windows
  std::error_code error_;
};

/// std::fopen for a path (on Windows _wfopen: the narrow fopen cannot name every file). `mode`
/// is "rb", "wb" or "ab": binary, so text is written with LF line ends everywhere. Not
/// inherited by child processes. Null on failure, errno set. On POSIX a file opened for
/// writing (as OutputFile's) is never a symbolic link: one there is ELOOP (error_text says
/// so), its target untouched.
std::FILE* open_file(const std::filesystem::path& path, const char* mode);

/// One line of text for an error from this layer ("No space left on device").
std::string error_text(std::error_code error);

}  // namespace cosim::platform
