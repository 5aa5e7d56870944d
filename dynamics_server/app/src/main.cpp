// cosim-dynamics: integrates a dynamics backend and streams its joint values as frames
// to a visual process (or to nobody, with --channel none), writing a run folder.

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/platform/console.hpp"
#include "cosim/util/cli.hpp"

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/protocol/program_options.hpp"
#include "cosim/protocol/signals.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/util/text.hpp"
#include "run_dynamics.hpp"

namespace {

std::string backend_list() {
  std::string out;
  for (const auto& entry : cosim::dynamics::registry::backend_registry()) {
    out += "  " + std::string(entry.name) + " - " + std::string(entry.summary) + "\n";
  }
  return out;
}

/// "natural duration 10 s" for the default parameters, or why it is unknown here (a default
/// file that is not under the scenes root).
std::string natural_duration_text(const cosim::dynamics::registry::BackendEntry& entry) {
  try {
    const auto params = cosim::dynamics::Params::resolve(entry.name, entry.param_specs(), nullptr, {});
    return "natural duration " + cosim::util::format("%g", entry.natural_duration_s(params)) + " s";
  } catch (const cosim::util::CosimError& e) {  // the listing goes on: one backend's file missing is no error
    return std::string("natural duration unknown (") + e.what() + ")";
  }
}

void print_backends() {
  for (const auto& entry : cosim::dynamics::registry::backend_registry()) {
    std::printf("%s - %.*s\n", std::string(entry.name).c_str(), static_cast<int>(entry.summary.size()),
                entry.summary.data());
    std::printf("    scene %.*s; %s; %s; %s\n", static_cast<int>(entry.default_scene.size()), entry.default_scene.data(),
                entry.capabilities.dynamics ? "dynamics" : "kinematics only",
                entry.capabilities.energy_balance ? "energy balance outputs" : "no energy balance",
                natural_duration_text(entry).c_str());
    for (const auto& spec : entry.param_specs()) {
      if (!spec.choices.empty()) {
        std::string names;
        for (std::size_t i = 0; i < spec.choices.size(); ++i) names += (i ? " | " : "") + spec.choices[i];
        std::printf("    %-24s default %-12s %s  %s (source: %s)\n", spec.key.c_str(),
                    spec.choices[static_cast<std::size_t>(spec.default_value)].c_str(), names.c_str(),
                    spec.doc.c_str(), spec.source.c_str());
        continue;
      }
      if (cosim::dynamics::is_family(spec)) {  // "fmu.*": a key per variable of the model
        const std::string key = spec.key.substr(0, spec.key.size() - 1) + "<NAME>";
        std::printf("    %-24s %s (source: %s)\n", key.c_str(), spec.doc.c_str(), spec.source.c_str());
        continue;
      }
      if (spec.text_default) {
        std::printf("    %-24s default %-12s [%s]  %s (source: %s)\n", spec.key.c_str(),
                    spec.text_default->empty() ? "(none)" : spec.text_default->c_str(), spec.unit.c_str(),
                    spec.doc.c_str(), spec.source.c_str());
        continue;
      }
      std::printf("    %-24s default %-12g [%s] range [%g, %g]  %s (source: %s)\n", spec.key.c_str(),
                  spec.default_value, spec.unit.c_str(), spec.min_value, spec.max_value, spec.doc.c_str(),
                  spec.source.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using cosim::dynamics::DynamicsOptions;
  DynamicsOptions options;
  options.channel = cosim::protocol::default_channel_text();
  const std::vector<std::string> args = cosim::platform::utf8_arguments(argc, argv);
  for (std::size_t i = 0; i < args.size(); ++i) options.command_line += (i ? " " : "") + args[i];

  CLI::App app{"cosim-dynamics: integrates a dynamics backend and streams joint values as frames to a visual "
               "process (cosim-visual or cosim-recorder), comparing the probe positions it reports with the "
               "dynamic model's.\n\nBackends:\n" + backend_list(),
               "cosim-dynamics"};
  app.set_version_flag("--version", cosim::protocol::version_banner("cosim-dynamics"));
  std::string mode = "lockstep";
  std::string out_dir;
  std::string params_file;
  double open_timeout_s = 10, report_timeout_s = 10;
  bool list_backends = false, quiet = false;
  std::string progress = "auto";
  app.add_option("--backend", options.backend, "dynamics backend (see --list-backends)")->capture_default_str();
  app.add_flag("--list-backends", list_backends, "list backends and their parameters, then exit");
  app.add_flag("--list-probes", options.list_probes,
               "list the probes of the run's scene (--scene, else the backend's), the compared ones marked, then exit");
  cosim::util::add_path_option(app, "--scene", options.scene,
                 "scene folder or project file (default: the backend's scene under $COSIM_SCENES_DIR or "
                 "<install>/share/cosim/scenes)");
  cosim::util::add_folder_list_option(app, "--package-path", options.package_path,
                 "folder holding the packages of a URDF scene's package://NAME/... meshes (repeatable or "
                 "':'-separated; searched before $COSIM_PACKAGE_PATH)");
  app.add_option("--params", params_file, "parameter file: 'key = value' lines, '#' comments")->type_name("PATH");
  app.add_option("--param", options.param_overrides, "parameter override key=value (repeatable; beats --params)");
  cosim::protocol::add_fps_option(app, options.fps)->capture_default_str();
  double duration_s = 0;  // given or not: the option's count
  auto* duration_option = cosim::protocol::add_duration_option(app, duration_s);
  app.add_option("--output-step", options.output_step_s, "dynamics.csv sampling step [s]")
      ->check(cosim::util::finite_range(1e-6, 3600))->capture_default_str();
  cosim::protocol::add_mode_option(app, mode)->capture_default_str();
  cosim::protocol::add_rate_option(app, options.rate)->capture_default_str();
  app.add_option("--channel", options.channel, cosim::protocol::valid_channel_forms())->capture_default_str();
  app.footer(cosim::protocol::channel_help() +
             "Examples:\n"
             "  cosim-dynamics --channel none                      the Robotino alone, its run folder only\n"
             "  cosim-dynamics --backend mecanum4 --list-probes    what a run of it compares\n"
             "  cosim-dynamics --backend mujoco --param model=robot.xml --channel tcp:127.0.0.1:5555\n");
  app.add_option("--out", out_dir, "run folder (default: runs/<UTC time>-<backend>)")->type_name("DIR");
  cosim::protocol::add_probe_option(app, options.probes);
  app.add_option("--open-timeout", open_timeout_s, "seconds to wait for the visual side to connect")
      ->check(cosim::util::finite_range(0, 86400))
      ->capture_default_str();
  app.add_option("--report-timeout", report_timeout_s, "seconds to wait for each ProbeReport (lockstep) and for the visual side's Bye at the end (every mode)")
      ->check(cosim::util::finite_range(0.001, 86400))
      ->capture_default_str();
  app.add_option("--progress", progress, "status line on stderr; auto: when stderr is a terminal")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", quiet, "no progress line and no summary on stdout");
  app.add_option("--protocol-major", options.protocol_major, "testing: announce this protocol major version")
      ->group("");  // hidden

  if (const int code = cosim::util::parse_command_line(app, args); code >= 0) return code;
  if (list_backends) {
    print_backends();
    return cosim::util::kExitOk;
  }
  if (duration_option->count() > 0) options.duration_s = duration_s;
  options.mode = mode == "free" ? cosim::v1::MODE_FREE
                 : mode == "realtime" ? cosim::v1::MODE_REALTIME
                                      : cosim::v1::MODE_LOCKSTEP;
  if (!params_file.empty()) options.params_file = cosim::platform::path_from_utf8(params_file);
  options.out_dir = cosim::platform::path_from_utf8(out_dir);  // empty: a new runs/<UTC time>-<backend> folder
  options.open_timeout = std::chrono::milliseconds(static_cast<long>(open_timeout_s * 1000));
  options.report_timeout = std::chrono::milliseconds(static_cast<long>(report_timeout_s * 1000));
  options.progress = !quiet && (progress == "always" || (progress == "auto" && cosim::platform::stderr_is_terminal()));

  cosim::protocol::install_stop_signal_handlers();
  if (quiet) std::freopen("/dev/null", "w", stdout);
  return cosim::dynamics::run_dynamics(options);
}
