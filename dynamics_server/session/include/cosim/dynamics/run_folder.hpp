#pragma once

#include <filesystem>
#include <string>

namespace cosim::dynamics {

/// The run folder (docs/design.md "Outputs"). Created at start so that everything written
/// before a failure stays there.
struct RunFolder {
  std::filesystem::path dir;
  std::filesystem::path run_json() const { return dir / "run.json"; }
  std::filesystem::path dynamics_csv() const { return dir / "dynamics.csv"; }
  std::filesystem::path probes_csv() const { return dir / "probes.csv"; }
  std::filesystem::path frames_log() const { return dir / "frames.cosimlog"; }
  std::filesystem::path event_log() const { return dir / "dynamics.log"; }
};

/// Creates dir (and parents). Refuses (util::BadInputError) a path that is not a directory
/// or a folder that already holds a run (run.json or dynamics.csv).
RunFolder create_run_folder(const std::filesystem::path& dir);

/// runs/<UTC timestamp>-<backend> under the current directory.
std::filesystem::path default_run_dir(const std::string& backend);

/// Creates a new folder `base`, or `base-2`, `base-3`, ... if that exists (mkdir is atomic:
/// two runs started in the same second get two folders). Throws util::BadInputError.
RunFolder create_new_run_folder(const std::filesystem::path& base);

}  // namespace cosim::dynamics
