#include "cosim/platform/paths.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace cosim::platform {

std::filesystem::path executable_path() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);  // Linux
  return ec ? std::filesystem::path() : exe;
}

std::filesystem::path make_private_temp_dir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::string pattern = (base / (std::string(prefix) + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {  // mode 0700
    throw std::system_error(errno, std::generic_category(), "cannot create a temp folder " + pattern);
  }
  return buffer.data();
}

std::optional<std::filesystem::path> find_program(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest(path);
  for (;;) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate, ec)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

std::string user_tag() { return std::to_string(::geteuid()); }

std::filesystem::path user_cache_dir() {
  const auto env = [](const char* name) -> std::optional<std::filesystem::path> {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::filesystem::path(value);
  };
  if (auto dir = env("COSIM_CACHE_DIR")) return *dir;
  if (auto dir = env("XDG_CACHE_HOME")) return *dir / "cosim";
  if (auto home = env("HOME")) return *home / ".cache" / "cosim";
  const char* tmp = std::getenv("TMPDIR");
  return std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / ("cosim-cache-" + user_tag());
}

}  // namespace cosim::platform
