// The one help style (util::HelpFormatter): what every cosim program's --help shows for its
// options, checked on options of each kind the programs declare.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "cosim/util/cli.hpp"

namespace cosim::util {
namespace {

// The help line of `name` (from two spaces before it to the end of its description).
std::string line_of(const std::string& help, const std::string& name) {
  const std::size_t at = help.find("  " + name + " ");
  if (at == std::string::npos) return "(no line for " + name + " in:\n" + help + ")";
  return help.substr(at + 2, help.find('\n', at) - at - 2);
}

std::string collapse_spaces(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  }
  return out;
}

TEST(HelpFormatter, NamesValuesByWhatTheyAreAndEndsWithRangeAndDefault) {
  CLI::App app{"test program", "prog"};
  double fps = 20;
  std::string forwarded_fps, mode = "lockstep", size, budget;
  std::vector<std::string> probes;
  bool quiet = false;
  app.add_option("--fps", fps, "frames per second")->check(finite_range(0.01, 10000))->capture_default_str();
  app.add_option("--rate", forwarded_fps, "sim seconds per wall second [s/s]")->check(finite_range(0.001, 1e6));
  app.add_option("--mode", mode, "pacing")->check(CLI::IsMember({"lockstep", "free", "realtime"}))->capture_default_str();
  app.add_option("--size", size, "size [px]")->type_name("WxH")->default_str("1280x720");
  app.add_option("--budget", budget, "triangles at most; 0 = all")->check(CLI::NonNegativeNumber)->default_str("200000");
  app.add_option("--probe", probes, "probe to compare (repeatable)");
  std::string backend = "robotino";
  app.add_option("--backend", backend, "dynamics backend (see --list-backends)")->capture_default_str();
  app.add_flag("-q,--quiet", quiet, "no summary");
  bool hold = false;
  app.add_flag("--hold,!--no-hold", hold, "stay open");
  ASSERT_EQ(parse_command_line(app, std::vector<std::string>{"prog"}), -1);  // installs the formatter
  const std::string help = app.help();

  EXPECT_EQ(collapse_spaces(line_of(help, "--fps")), "--fps NUMBER frames per second (in [0.01, 10000]; default 20)");
  // Text the launcher passes on, checked as a number: a NUMBER too.
  EXPECT_EQ(collapse_spaces(line_of(help, "--rate")), "--rate NUMBER sim seconds per wall second [s/s] (in [0.001, 1e+06])");
  EXPECT_EQ(collapse_spaces(line_of(help, "--mode")), "--mode lockstep|free|realtime pacing (default lockstep)");
  EXPECT_EQ(collapse_spaces(line_of(help, "--size")), "--size WxH size [px] (default 1280x720)");
  EXPECT_EQ(collapse_spaces(line_of(help, "--budget")), "--budget NUMBER triangles at most; 0 = all (>= 0; default 200000)");
  EXPECT_EQ(collapse_spaces(line_of(help, "--probe")), "--probe TEXT ... probe to compare (repeatable)");
  EXPECT_EQ(collapse_spaces(line_of(help, "-q,--quiet")), "-q,--quiet no summary");
  EXPECT_EQ(collapse_spaces(line_of(help, "--hold,--no-hold")), "--hold,--no-hold stay open");
  // Facts go inside a description's own closing parentheses rather than after them.
  EXPECT_EQ(collapse_spaces(line_of(help, "--backend")), "--backend TEXT dynamics backend (see --list-backends; default robotino)");
  // CLI11's own forms appear nowhere: types joined to their checks, "=default", "Excludes".
  for (const char* raw : {"TEXT:", "FLOAT", "INT", "=20", "=lockstep", ":{"}) {
    EXPECT_EQ(help.find(raw), std::string::npos) << raw << " in:\n" << help;
  }
}

}  // namespace
}  // namespace cosim::util
