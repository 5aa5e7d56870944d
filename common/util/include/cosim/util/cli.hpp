#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {

/// Parses argv the way every cosim executable does. Returns -1 to go on, or the exit code to
/// stop with now: 0 after --help/--version, 2 after one "program: error: ..." line for bad usage.
/// `args` are UTF-8, the program's name first (platform::utf8_arguments).
inline int parse_command_line(CLI::App& app, std::vector<std::string> args) {
  try {
    if (!args.empty()) args.erase(args.begin());
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // What was typed is shown, not obeyed (control characters, escape sequences: printable()).
    std::fprintf(stderr, "%s: error: %s (see --help)\n", app.get_name().c_str(), printable(e.what(), kMaxEventChars).c_str());
    return kExitBadInput;
  }
}

/// As above, with the process's own arguments (as UTF-8: on Windows from the wide command line).
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  return parse_command_line(app, platform::utf8_arguments(argc, argv));
}

/// A path option: the UTF-8 text becomes a path as platform::path_from_utf8 reads it
/// (binding a std::filesystem::path directly would read it in the ANSI code page on Windows).
inline CLI::Option* add_path_option(CLI::App& app, const std::string& name, std::filesystem::path& target,
                                    const std::string& description) {
  return app.add_option_function<std::string>(
      name, [&target](const std::string& text) { target = platform::path_from_utf8(text); }, description);
}

/// A repeatable option of folders, each value also a list separated like PATH (':', ';' on
/// Windows): every folder is appended to `target` in order and must exist.
inline CLI::Option* add_folder_list_option(CLI::App& app, const std::string& name,
                                           std::vector<std::filesystem::path>& target, const std::string& description) {
#ifdef _WIN32
  constexpr char kSeparator = ';';
#else
  constexpr char kSeparator = ':';
#endif
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, name](const std::vector<std::string>& values) {
            for (const std::string& value : values) {
              std::size_t start = 0;
              while (start <= value.size()) {
                const std::size_t end = std::min(value.find(kSeparator, start), value.size());
                if (end > start) {
                  const std::string folder = value.substr(start, end - start);
                  std::error_code ec;
                  if (!std::filesystem::is_directory(platform::path_from_utf8(folder), ec)) {
                    throw CLI::ValidationError(name, "'" + folder + "' is not a folder");
                  }
                  target.push_back(platform::path_from_utf8(folder));
                }
                start = end + 1;
              }
            }
          },
          description)
      ->type_name("DIR");
}

/// A CLI11 check for a numeric option: a finite number in [min, max] ("nan", "inf" and
/// values that would overflow a conversion later are refused up front, naming the range).
inline CLI::Validator finite_range(double min, double max) {
  char range[96];
  std::snprintf(range, sizeof range, "[%g, %g]", min, max);
  const std::string description = range;
  return CLI::Validator(
      [min, max, description](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < min || v > max) {
          return "'" + text + "' is not a number in " + description;
        }
        return "";
      },
      description);
}

}  // namespace cosim::util
