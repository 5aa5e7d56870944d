#include "cosim/platform/paths.hpp"

#include <fstream>
#include <system_error>

namespace cosim::platform {

std::string utf8(const std::filesystem::path& path) {
  const std::u8string text = path.u8string();
  return {text.begin(), text.end()};
}

std::filesystem::path path_from_utf8(std::string_view text) {
  return std::filesystem::path(std::u8string(text.begin(), text.end()));
}

bool is_link(const std::filesystem::path& path) noexcept {
  std::error_code ec;
  return std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec));
}

std::error_code replace_file(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path partial = path;
  partial += ".partial";
  std::error_code ec;
  std::filesystem::remove(partial, ec);  // removes a link itself, not what it names
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(partial, ec);
      return std::make_error_code(std::errc::io_error);
    }
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
  }
  return ec;
}

}  // namespace cosim::platform
