#pragma once
// cosim-visual's modes, shared by main.cpp and session_loops.cpp.

#include <cstdint>
#include <filesystem>
#include <string>

#include "cosim/scene/scene_model.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/visual/client_session.hpp"
#include "cosim/visual/vtk/viewer.hpp"

namespace cosim::visual::app {

struct VisualOptions {
  ClientOptions client;
  std::filesystem::path scene;
  std::filesystem::path out_dir;
  bool offscreen = false;  // after display detection: true whenever no window is shown
  int width = 1280, height = 720;
  std::filesystem::path video;
  int screenshot_every = 0;
  double slow_ms = 0;  // testing: sleep per frame shown, like a slow renderer
  bool quiet = false;
  bool hud = true;
  bool hold = false;  // interactive: keep the window open after the run
  std::string camera = "auto";
  // Standalone modes.
  bool standalone = false;  // --joints or --pose given (even empty: the zero pose)
  std::filesystem::path pose_file;
  std::string joints;
  std::filesystem::path screenshot;
  int bench_frames = 0;
  std::filesystem::path replay;  // play a recorded run instead of connecting
  bool as_fast_as_possible = false;
};

CameraMode camera_mode(const VisualOptions& options, CameraMode automatic);

/// A coupled run: handshake, then render every frame shown (offscreen or in a window).
/// Returns the exit code; errors are logged as one line.
int run_session(const VisualOptions& options, const scene::SceneModel& scene, util::EventLog& log);

}  // namespace cosim::visual::app
