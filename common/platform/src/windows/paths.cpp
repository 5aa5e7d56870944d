#include "cosim/platform/paths.hpp"

#include <windows.h>

#include <optional>
#include <random>
#include <string>
#include <system_error>

namespace cosim::platform {

std::filesystem::path executable_path() {
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
    if (n == 0) return {};
    if (n < buffer.size()) {
      buffer.resize(n);
      return buffer;
    }
    buffer.resize(buffer.size() * 2);
  }
}

std::filesystem::path make_private_temp_dir(std::string_view prefix) {
  // %TEMP% is the user's own (its ACL admits the user, SYSTEM and administrators), and a
  // new folder inherits that: private as mkdtemp's 0700 is.
  const std::filesystem::path base = std::filesystem::temp_directory_path();
  std::random_device entropy;
  constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name(prefix);
    for (int i = 0; i < 6; ++i) name += kLetters[entropy() % (sizeof kLetters - 1)];
    const std::filesystem::path dir = base / path_from_utf8(name);
    if (CreateDirectoryW(dir.c_str(), nullptr)) return dir;
    if (GetLastError() != ERROR_ALREADY_EXISTS) break;
  }
  throw std::system_error(static_cast<int>(GetLastError()), std::system_category(),
                          "cannot create a temp folder in " + utf8(base));
}

std::optional<std::filesystem::path> find_program(std::string_view name) {
  const DWORD n = GetEnvironmentVariableW(L"PATH", nullptr, 0);
  if (n == 0) return std::nullopt;
  std::wstring path(n, L'\0');
  path.resize(GetEnvironmentVariableW(L"PATH", path.data(), n));
  const std::filesystem::path file = path_from_utf8(name);
  std::wstring_view rest(path);
  for (;;) {
    const auto semicolon = rest.find(L';');
    const std::filesystem::path dir(rest.substr(0, semicolon));
    for (const wchar_t* ending : {L"", L".exe"}) {
      std::filesystem::path candidate = (dir.empty() ? std::filesystem::path(L".") : dir) / file;
      candidate += ending;
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    if (semicolon == std::wstring_view::npos) return std::nullopt;
    rest.remove_prefix(semicolon + 1);
  }
}

std::string user_tag() {
  wchar_t name[257];
  DWORD n = sizeof name / sizeof name[0];
  if (!GetUserNameW(name, &n) || n <= 1) return "user";
  std::string tag;
  for (DWORD i = 0; i + 1 < n; ++i) {
    const wchar_t c = name[i];
    const bool keep = (c >= L'a' && c <= L'z') || (c >= L'A' && c <= L'Z') || (c >= L'0' && c <= L'9') ||
                      c == L'-' || c == L'_' || c == L'.';
    tag += keep ? static_cast<char>(c) : '_';
  }
  return tag;
}

std::filesystem::path user_cache_dir() {
  const auto env = [](const wchar_t* name) -> std::optional<std::filesystem::path> {
    const DWORD n = GetEnvironmentVariableW(name, nullptr, 0);
    if (n <= 1) return std::nullopt;
    std::wstring value(n, L'\0');
    value.resize(GetEnvironmentVariableW(name, value.data(), n));
    if (value.empty()) return std::nullopt;
    return std::filesystem::path(value);
  };
  if (auto dir = env(L"COSIM_CACHE_DIR")) return *dir;
  if (auto dir = env(L"LOCALAPPDATA")) return *dir / "cosim";
  return std::filesystem::temp_directory_path() / ("cosim-cache-" + user_tag());
}

}  // namespace cosim::platform
