#pragma once
/// \file
/// One co-simulation run as scripts/cosim.sh used to do it: both sides on a channel, their
/// interrupts, their exit codes, the clean-up, the report.

#include <string>
#include <vector>

namespace cosim::launcher {

/// The launcher's options; numbers stay text, passed on as the user wrote them (main checks
/// their ranges).
struct LaunchOptions {
  std::string backend = "robotino";
  std::string scene;  ///< empty: each side takes the backend's scene under the scenes root
  /// URDF package:// folders (checked to exist), each passed on to both sides as --package-path.
  std::vector<std::string> package_path;
  std::string fps = "20";
  std::string duration_s;  ///< empty: not passed on, the dynamics runs the backend's natural duration
  std::string mode = "lockstep";
  std::string rate = "1";  ///< realtime mode: sim seconds per wall second
  std::string params;      ///< backend parameter file; empty: none
  std::vector<std::string> param_overrides;  ///< key=value, each passed on as --param (beats the file)
  std::vector<std::string> probes;           ///< probes to compare, each passed on as --probe; empty: all
  std::string channel;     ///< empty: a private one (make_private_channel), removed at the end
  std::string out;         ///< run folder; empty: a new runs/<UTC time>-<backend> in the current folder
  bool recorder = false;   ///< the visual side is cosim-recorder even when cosim-visual is built
  bool verbose = false;    ///< say what starts, with pids
  bool report = true;      ///< cosim-report at the end (cosim-sweep's points tabulate instead)
  std::vector<std::string> dynamics_args;  ///< given after "--": appended to cosim-dynamics' arguments
  /// cosim-visual's own options as given (--camera, --size, --hold...): refused with the
  /// recorder, which has no picture.
  std::vector<std::string> visual_options;
};

/// Runs both sides and the report; returns the exit code: 130 if interrupted, else that of the
/// side that failed first (the other only followed it), else 0. Throws
/// util::CosimError (bad options, a folder that cannot be made, a program that cannot start).
int launch(const LaunchOptions& options);

}  // namespace cosim::launcher
