#pragma once

#include <cstdio>
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

}  // namespace cosim::util
