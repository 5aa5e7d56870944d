#pragma once
// cosim-visual's modes, shared by main.cpp and session_loops.cpp.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cosim/protocol/program_options.hpp"
#include "cosim/scene/scene_model.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/visual/client_session.hpp"
#include "cosim/visual/frame_source.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/visual/vtk/viewer.hpp"

namespace cosim::visual::app {

struct VisualOptions {
  ClientOptions client;
  std::filesystem::path scene;
  std::vector<std::filesystem::path> package_path;  // --package-path: URDF package:// folders
  std::filesystem::path out_dir;
  bool offscreen = false;  // after display detection: true whenever no window is shown
  int width = 1280, height = 720;
  std::filesystem::path video;
  int screenshot_every = 0;
  double slow_ms = 0;  // testing: sleep per frame shown, like a slow renderer
  bool quiet = false;
  bool hud = true;
  bool hold = false;  // interactive: keep the window open after the run (main: default when stdin is a terminal)
  std::string camera = protocol::kDefaultCamera;
  bool inset = true;  // follow camera: a top view of the whole path in a corner
  bool contact = false;  // highlight the part of each wheel touching the floor
  bool all_probe_marks = false;  // mark every probe, not only the compared ones (key p)
  std::size_t triangle_budget = protocol::kDefaultTriangleBudget;  // mesh triangles drawn at most (decimated beyond); 0 = all
  double speed = protocol::kDefaultSpeed;   // window: sim seconds shown per wall second; 0 = as fast as frames come
  // Standalone modes.
  bool standalone = false;  // --joints or --pose given (even empty: the zero pose)
  std::filesystem::path pose_file;
  std::string joints;
  std::filesystem::path screenshot;
  int bench_frames = 0;
  std::filesystem::path replay;  // play a recorded run instead of connecting
  std::optional<double> seek_s;  // with replay: start at this sim time [s]
  bool as_fast_as_possible = false;
};

CameraMode camera_mode(const VisualOptions& options, CameraMode automatic);

/// What a coupled run has set up so far; main's one catch uses it to tell the peer and keep
/// the recording when something fails.
struct SessionState {
  std::unique_ptr<wire::CosimLogWriter> record;
  std::unique_ptr<FrameSource> source;
  std::optional<scene::SceneModel> scene;  ///< loaded after the Hello when no scene was given
};

/// A coupled run: connects (or opens the replay), takes the scene given or the one named after
/// the Hello's model, then renders every frame shown (offscreen or in a window). Throws.
void run_session(const VisualOptions& options, const scene::SceneModel* given_scene, util::EventLog& log,
                 SessionState& state);

}  // namespace cosim::visual::app
