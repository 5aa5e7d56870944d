#pragma once
/// @file
/// The options the launcher passes on to the programs it starts, declared once — name, values
/// or range, help — so the vocabularies cannot drift apart. cosim-dynamics and cosim-visual add
/// them with these functions; the launcher adds the same ones, so that a typo is refused
/// before anything starts, and forwards the text as given. (Header-only: CLI11 is headers.)

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/util/cli.hpp"

namespace cosim::protocol {

// --- cosim-dynamics ---------------------------------------------------------------------------

/// --mode lockstep | free | realtime (docs/design.md#modes).
inline CLI::Option* add_mode_option(CLI::App& app, std::string& mode) {
  return app
      .add_option("--mode", mode,
                  "lockstep: each frame waits for its probe report; free: frames as fast as computed; realtime: "
                  "paced by the wall clock at --rate")
      ->check(CLI::IsMember({"lockstep", "free", "realtime"}));
}

/// --fps: frames per second sent to the visual side. `T`: a number, or text to forward.
template <class T>
CLI::Option* add_fps_option(CLI::App& app, T& fps) {
  return app.add_option("--fps", fps, "frames per second sent to the visual side")
      ->check(util::finite_range(0.01, 10000));
}

/// --duration: simulated time [s]; not given, the backend's natural duration, which `listed_by`
/// lists (cosim-dynamics' --list-backends).
template <class T>
CLI::Option* add_duration_option(CLI::App& app, T& duration_s, const std::string& listed_by = "--list-backends") {
  return app
      .add_option("--duration", duration_s,
                  "simulated time [s] (default: the backend's natural duration, see " + listed_by + ")")
      ->check(util::finite_range(0.001, 1e6));
}

/// --rate: sim seconds per wall second in realtime mode.
template <class T>
CLI::Option* add_rate_option(CLI::App& app, T& rate) {
  return app.add_option("--rate", rate, "realtime mode: sim seconds per wall second")
      ->check(util::finite_range(0.001, 1e6));
}

// --- cosim-visual ------------------------------------------------------------------------------

// Defaults of the viewer options, shown by cosim-visual and by the launcher that passes them on.
inline constexpr const char* kDefaultCamera = "auto";
inline constexpr const char* kDefaultSize = "1280x720";
inline constexpr const char* kDefaultHud = "on";
inline constexpr const char* kDefaultInset = "on";
inline constexpr const char* kDefaultProbeMarks = "compared";
inline constexpr double kDefaultSpeed = 1;
inline constexpr std::size_t kDefaultTriangleBudget = 200000;

/// --camera auto | robot | follow | overview.
inline CLI::Option* add_camera_option(CLI::App& app, std::string& camera) {
  return app
      .add_option("--camera", camera,
                  "view; auto: follow the first probe in a run, robot for one pose")
      ->check(CLI::IsMember({"auto", "robot", "follow", "overview"}));
}

/// --inset on | off.
/// --probe: a probe of the scene to compare and follow (repeatable).
inline CLI::Option* add_probe_option(CLI::App& app, std::vector<std::string>& probes) {
  return app.add_option("--probe", probes,
                        "probe to compare, scoped as the scene names it (repeatable; the first drives the HUD, "
                        "the follow camera and the report; default: the probes the scene's author wrote, else its first moving "
                        "link or body; --list-probes shows them)");
}

inline CLI::Option* add_hud_option(CLI::App& app, std::string& hud) {
  return app.add_option("--hud", hud, "overlay of sim time, frame, render rate, frames skipped, probe position")
      ->check(CLI::IsMember({"on", "off"}));
}

inline CLI::Option* add_probe_marks_option(CLI::App& app, std::string& marks) {
  return app
      .add_option("--probe-marks", marks,
                  "orange dots on the probes compared (without a run, the scene's default probes) or on every "
                  "probe of the scene; key p switches")
      ->check(CLI::IsMember({"compared", "all"}));
}

inline CLI::Option* add_inset_option(CLI::App& app, std::string& inset) {
  return app.add_option("--inset", inset, "with the follow camera, a top view of the robot's whole path in a corner")
      ->check(CLI::IsMember({"on", "off"}));
}

/// --speed: sim seconds shown per wall second in a window.
template <class T>
CLI::Option* add_speed_option(CLI::App& app, T& speed) {
  return app
      .add_option("--speed", speed,
                  "window: sim seconds shown per wall second, 0 = as fast as frames come; keys + and - change it")
      ->check(util::finite_range(0, 64));
}

}  // namespace cosim::protocol
