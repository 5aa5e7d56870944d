// cosim-report: turns a run folder into report.md and PNG plots (path, virtual minus
// dynamic, deviation from the reference, delay histograms, a wheel's contact and forces, the
// difference between two runs).
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "cosim/platform/paths.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/report/run_report.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/exit_codes.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cosim-report: writes report.md and plots/*.png (drawn by gnuplot) into a run folder of "
               "cosim-dynamics, from its run.json, dynamics.csv and probes.csv; or, with --json, prints the "
               "run's metrics as JSON.",
               "cosim-report"};
  app.set_version_flag("--version", std::string("cosim-report ") + COSIM_SOFTWARE_VERSION);
  std::filesystem::path run_dir;
  int width = 1000, height = 600;
  std::filesystem::path compare_run;
  bool json = false;
  cosim::util::add_path_option(app, "RUN_DIR", run_dir, "run folder")->type_name("DIR")->required();
  cosim::util::add_path_option(app, "--compare", compare_run,
                               "a second run folder: its deviation from the reference drawn beside this one's, or "
                               "(omniwheel) roller 1's vertical motion subtracted row by row")
      ->type_name("DIR");
  app.add_option("--width", width, "plot width [px]")->capture_default_str()->check(cosim::util::finite_range(200, 8000));
  app.add_option("--height", height, "plot height [px]")->capture_default_str()->check(cosim::util::finite_range(200, 8000));
  app.add_flag("--json", json,
               "print the metrics (counts, delays, differences, deviation from the reference, speed errors per "
               "phase) as one JSON document on stdout; write nothing into the run folder")
      ->excludes("--compare");
  app.footer("Examples:\n"
             "  cosim-report runs/20261127T101500Z-robotino          report.md and plots/ in the run folder\n"
             "  cosim-report RUN_A --compare RUN_B                   two runs' deviations in one plot\n"
             "  cosim-report --json RUN_DIR                          the metrics, for scripts");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    const auto facts = cosim::report::read_run(run_dir);
    for (const auto& note : facts.notes) std::fprintf(stderr, "cosim-report: note: %s\n", note.c_str());
    if (json) {
      std::fputs(cosim::report::metrics_json(facts).c_str(), stdout);
      return cosim::util::kExitOk;
    }
    const auto written = cosim::report::write_report(run_dir, facts, width, height, compare_run);
    // The plots are drawn, but what gnuplot said about them is not swallowed.
    for (const auto& said : written.gnuplot_messages) std::fprintf(stderr, "cosim-report: gnuplot: %s\n", said.c_str());
    std::printf("report: %s (%zu plots)\n", cosim::platform::utf8(run_dir / "report.md").c_str(), written.pngs.size());
    return cosim::util::kExitOk;
  } catch (...) {  // the one place cosim-report catches (STYLE 9): bad input 2, a bug 1
    const cosim::protocol::Outcome outcome = cosim::protocol::outcome_of(std::current_exception());
    std::fprintf(stderr, "cosim-report: error: %s\n", outcome.message.c_str());
    return outcome.exit_code;
  }
}
