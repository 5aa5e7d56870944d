#include "cosim/platform/output_file.hpp"

#include <windows.h>
#include <fcntl.h>
#include <io.h>

#include <cerrno>
#include <string_view>

namespace cosim::platform {
namespace {

// Disk full as the POSIX build reports it (ENOSPC), so callers name it the same way.
std::error_code last_write_error() {
  const DWORD error = GetLastError();
  if (error == ERROR_DISK_FULL || error == ERROR_HANDLE_DISK_FULL) {
    return std::make_error_code(std::errc::no_space_on_device);
  }
  return {static_cast<int>(error), std::system_category()};
}

HANDLE handle_of(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& path, Open how) {
  // FILE_SHARE_DELETE: a reader or a clean-up may remove the file while we hold it, as on POSIX.
  const HANDLE h = CreateFileW(path.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               nullptr, how == Open::create_or_truncate ? CREATE_ALWAYS : OPEN_EXISTING,
                               FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    error_ = last_write_error();
  } else {
    handle_ = reinterpret_cast<std::intptr_t>(h);
  }
}

OutputFile::~OutputFile() {
  if (handle_ != -1) CloseHandle(handle_of(handle_));
}

std::error_code OutputFile::write_at(std::string_view bytes, std::uint64_t offset_bytes) noexcept {
  while (!bytes.empty()) {
    OVERLAPPED at{};  // on a synchronous handle only the offset is used
    at.Offset = static_cast<DWORD>(offset_bytes);
    at.OffsetHigh = static_cast<DWORD>(offset_bytes >> 32);
    const DWORD chunk = bytes.size() > (1u << 30) ? (1u << 30) : static_cast<DWORD>(bytes.size());
    DWORD written = 0;
    if (!WriteFile(handle_of(handle_), bytes.data(), chunk, &written, &at)) return last_write_error();
    if (written == 0) return std::make_error_code(std::errc::no_space_on_device);
    bytes.remove_prefix(written);
    offset_bytes += written;
  }
  return {};
}

std::error_code OutputFile::truncate(std::uint64_t size_bytes) noexcept {
  FILE_END_OF_FILE_INFO end{};
  end.EndOfFile.QuadPart = static_cast<LONGLONG>(size_bytes);
  if (!SetFileInformationByHandle(handle_of(handle_), FileEndOfFileInfo, &end, sizeof end)) return last_write_error();
  return {};
}

std::string error_text(std::error_code error) {
  if (error.category() != std::system_category()) return error.message();
  char* text = nullptr;
  const DWORD n = FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr, static_cast<DWORD>(error.value()), 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string out = n != 0 && text != nullptr ? std::string(text, n) : "Windows error " + std::to_string(error.value());
  if (text != nullptr) LocalFree(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace cosim::platform

namespace cosim::platform {

std::FILE* open_file(const std::filesystem::path& path, const char* mode) {
  std::wstring wide_mode(mode, mode + std::char_traits<char>::length(mode));
  wide_mode += L'N';  // msvcrt: not inherited by child processes
  return _wfopen(path.c_str(), wide_mode.c_str());
}

}  // namespace cosim::platform
