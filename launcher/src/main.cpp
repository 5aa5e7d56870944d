// cosim: runs a co-simulation with one command: cosim-dynamics and the visual side on a
// private channel, interrupts passed on to both, the summary, the report.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/outcome.hpp"
#include "cosim/protocol/program_options.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/text.hpp"
#include "cosim/util/errors.hpp"
#include "launch.hpp"

int main(int argc, char** argv) {
  // Everything after the first "--" goes to cosim-dynamics untouched; CLI11 sees the rest.
  std::vector<std::string> args = cosim::platform::utf8_arguments(argc, argv);
  if (args.empty()) args.emplace_back("cosim");
  const auto dashes = std::find(args.begin() + 1, args.end(), "--");
  cosim::launcher::LaunchOptions options;
  options.dynamics_args.assign(dashes == args.end() ? args.end() : dashes + 1, args.end());

  CLI::App app{"cosim: runs a co-simulation. Starts cosim-dynamics and the visual side (cosim-visual, or\n"
               "cosim-recorder) on a private channel, passes Ctrl-C on to both, waits for both, removes the\n"
               "channel, writes the report (cosim-report) and says where the run folder and the report are.",
               "cosim"};
  app.set_version_flag("--version", std::string("cosim ") + COSIM_SOFTWARE_VERSION);
  app.add_option("--backend", options.backend, "dynamics backend (see cosim-dynamics --list-backends)")
      ->capture_default_str();
  app.add_option("--scene", options.scene,
                 "scene folder or project file (default: the backend's scene under " +
                     cosim::platform::utf8(cosim::scene::scenes_root()) + ")")
      ->type_name("PATH");
  std::vector<std::filesystem::path> package_path;
  cosim::util::add_folder_list_option(app, "--package-path", package_path,
                                      "folder holding the packages of a URDF scene's package://NAME/... meshes "
                                      "(repeatable or ':'-separated; passed on to both sides; searched before "
                                      "$COSIM_PACKAGE_PATH)");
  // cosim-dynamics' own definitions (program_options.hpp), forwarded as given.
  cosim::protocol::add_fps_option(app, options.fps)->capture_default_str();
  cosim::protocol::add_duration_option(app, options.duration_s, "cosim-dynamics --list-backends");
  cosim::protocol::add_mode_option(app, options.mode)->capture_default_str();
  cosim::protocol::add_rate_option(app, options.rate)->capture_default_str();
  app.add_option("--params", options.params, "backend parameter file")->type_name("PATH");
  app.add_option("--param", options.param_overrides, "backend parameter key=value (repeatable; beats --params)");
  cosim::protocol::add_probe_option(app, options.probes);
  app.add_option("--channel", options.channel,
                 "channel between the two sides, as cosim-dynamics takes it (default: a private one, removed at "
                 "the end)");
  app.add_option("--out", options.out, "run folder (default: runs/<UTC time>-<backend> in the current folder)")
      ->type_name("DIR");
  app.add_flag("--recorder", options.recorder, "visual side = cosim-recorder (the headless recorder stub)");
  app.add_flag("-v,--verbose", options.verbose, "say which processes start, with their pids and arguments");
  bool no_report = false;
  app.add_flag("--no-report", no_report, "no report at the end (cosim-report RUN_DIR writes it later)");
  // cosim-visual's options, passed on; those with a fixed set of values are checked here too, so
  // that a typo is reported before anything starts (cosim-visual checks --size).
  std::string camera, size, video, screenshot_every, speed, inset, hud, probe_marks, triangle_budget;
  bool hold = false, no_hold = false, contact = false;
  const std::string viewer = "Viewer (cosim-visual)";
  // Shown with cosim-visual's defaults; passed on only when given.
  cosim::protocol::add_camera_option(app, camera)->group(viewer)->default_str(cosim::protocol::kDefaultCamera);
  app.add_option("--size", size, "window or video size [px]")
      ->type_name("WxH")
      ->group(viewer)
      ->default_str(cosim::protocol::kDefaultSize);
  cosim::protocol::add_speed_option(app, speed)
      ->group(viewer)
      ->default_str(cosim::util::format("%g", cosim::protocol::kDefaultSpeed));
  cosim::protocol::add_inset_option(app, inset)->group(viewer)->default_str(cosim::protocol::kDefaultInset);
  cosim::protocol::add_hud_option(app, hud)->group(viewer)->default_str(cosim::protocol::kDefaultHud);
  cosim::protocol::add_probe_marks_option(app, probe_marks)
      ->group(viewer)
      ->default_str(cosim::protocol::kDefaultProbeMarks);
  app.add_option("--triangle-budget", triangle_budget,
                 "mesh triangles drawn at most, meshes decimated at load beyond it; 0 = all")
      ->check(CLI::NonNegativeNumber)
      ->group(viewer)
      ->default_str(std::to_string(cosim::protocol::kDefaultTriangleBudget));
  auto* hold_flag = app.add_flag("--hold", hold, "window stays open after the run (default when started from a terminal)")
                        ->group(viewer);
  app.add_flag("--no-hold", no_hold, "window closes at the end of the run")->group(viewer)->excludes(hold_flag);
  app.add_flag("--contact", contact, "highlight the roller of each wheel touching the floor")->group(viewer);
  app.add_option("--video", video, "also write every frame shown to this MP4")->type_name("PATH")->group(viewer);
  app.add_option("--screenshot-every", screenshot_every, "PNG of every Nth frame into RUN/screenshots/; 0 = none")
      ->check(CLI::NonNegativeNumber)
      ->group(viewer);
  app.footer("-- ARGS...: anything after -- goes to cosim-dynamics (e.g. -- --report-timeout 30).\n"
             "Exit code: 130 after an interrupt, else that of the side that failed first, else 0.\n" +
             cosim::protocol::channel_help() +
             "Examples:\n"
             "  cosim                                                 the Robotino on the rose, in a window\n"
             "  cosim --recorder --backend mecanum4                   headless, with its report\n"
             "  cosim --backend mujoco --param model=robot.xml        a MuJoCo model, drawn from the model itself\n"
             "  cosim --backend trajectory --param trajectory=path.csv --scene robot.urdf");
  if (const int code = cosim::util::parse_command_line(app, std::vector<std::string>(args.begin(), dashes));
      code >= 0) {
    return code;
  }
  options.report = !no_report;
  for (const auto& [name, value] : {std::pair<const char*, const std::string&>{"--camera", camera},
                                    {"--size", size},
                                    {"--speed", speed},
                                    {"--inset", inset},
                                    {"--hud", hud},
                                    {"--probe-marks", probe_marks},
                                    {"--triangle-budget", triangle_budget},
                                    {"--video", video},
                                    {"--screenshot-every", screenshot_every}}) {
    if (!value.empty()) options.visual_options.insert(options.visual_options.end(), {name, value});
  }
  for (const auto& folder : package_path) options.package_path.push_back(cosim::platform::utf8(folder));
  if (hold) options.visual_options.emplace_back("--hold");
  if (no_hold) options.visual_options.emplace_back("--no-hold");
  if (contact) options.visual_options.emplace_back("--contact");
  try {
    return cosim::launcher::launch(options);
  } catch (...) {  // the one place cosim catches (STYLE 9), as every program: protocol::outcome_of
    const cosim::protocol::Outcome outcome = cosim::protocol::outcome_of(std::current_exception());
    std::fprintf(stderr, "cosim: error: %s\n", outcome.message.c_str());
    return outcome.exit_code;
  }
}
