#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "cosim/util/exit_codes.hpp"

namespace cosim::util {

/// Parses argv the way every cosim executable does. Returns -1 to go on, or the exit code to
/// stop with now: 0 after --help/--version, 2 after one "program: error: ..." line for bad usage.
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s (see --help)\n", app.get_name().c_str(), e.what());
    return kExitBadInput;
  }
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
