#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cosim/v1/cosim.pb.h"

namespace cosim::dynamics {

/// Everything `cosim-dynamics` was asked to do, after parsing and validation.
struct DynamicsOptions {
  std::string backend = "robotino";
  std::filesystem::path scene;               ///< empty: the backend's default scene
  std::vector<std::filesystem::path> package_path;  ///< URDF package:// folders, before $COSIM_PACKAGE_PATH
  std::optional<std::filesystem::path> params_file;
  std::vector<std::string> param_overrides;  ///< "key=value", CLI precedence
  bool list_probes = false;  ///< print the scene's probes (the run's scene, as it would be chosen) and exit
  double fps = 20.0;                         ///< frames per second [1/s]
  /// Simulated time [s]; none: the backend's natural duration (BackendEntry::natural_duration_s).
  std::optional<double> duration_s;
  double output_step_s = 0.02;               ///< dynamics.csv sampling [s]
  v1::Mode mode = v1::MODE_LOCKSTEP;
  double rate = 1.0;                         ///< realtime: sim seconds per wall second
  std::string channel;                       ///< a --channel value (protocol::parse_channel_spec)
  std::filesystem::path out_dir;             ///< run folder; empty: a new runs/<UTC time>-<backend>
  std::vector<std::string> probes;           ///< probes to request; empty = all of the scene
  std::chrono::milliseconds open_timeout{10'000};
  std::chrono::milliseconds report_timeout{10'000};  ///< lockstep wait for each ProbeReport
  std::uint32_t protocol_major = 0;          ///< test hook: speak another major (0 = ours)
  bool progress = false;                     ///< one updating status line on the terminal
  std::string command_line;                  ///< for run.json
};

}  // namespace cosim::dynamics
