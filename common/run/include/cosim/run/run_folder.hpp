#pragma once
/// \file
/// The run folder (docs/design.md "The run folder"): its name, its creation and the names of
/// the files in it. The one place that knows them: cosim-dynamics, the launcher, the report
/// and the tests all ask here.

#include <filesystem>
#include <string>

namespace cosim::run {

/// A run folder and the files cosim-dynamics writes into it.
struct RunFolder {
  std::filesystem::path dir;
  std::filesystem::path run_json() const { return dir / "run.json"; }
  std::filesystem::path dynamics_csv() const { return dir / "dynamics.csv"; }
  std::filesystem::path probes_csv() const { return dir / "probes.csv"; }
  std::filesystem::path frames_log() const { return dir / "frames.cosimlog"; }
  std::filesystem::path event_log() const { return dir / "dynamics.log"; }
};

/// `runs/<UTC timestamp>-<backend>` under the current directory (relative).
std::filesystem::path default_run_dir(const std::string& backend);

/// Creates dir (and parents), for a run given with --out. Refuses (util::BadInputError) a path
/// that is not a directory or a folder that already holds a run (run.json or dynamics.csv);
/// an empty folder made for the run (by the launcher) is taken.
RunFolder create_run_folder(const std::filesystem::path& dir);

/// Creates a new folder `base`, or `base-2`, `base-3`, ... if that exists (mkdir is atomic:
/// two runs started in the same second get two folders). Throws util::OutputError.
RunFolder create_new_run_folder(const std::filesystem::path& base);

}  // namespace cosim::run
