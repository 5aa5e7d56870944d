#pragma once
/// @file
/// Running a study's points (docs/sweeps.md): a local pool of cosim-dynamics processes, each
/// point in its own run folder DIR/<id>/, points.csv and results.csv beside them, a progress
/// line on a terminal, a clean stop on Ctrl-C and a resume that runs only what is missing.

#include <filesystem>
#include <string>

#include "cosim/sweep/spec.hpp"

namespace cosim::sweep {

struct RunOptions {
  std::filesystem::path out_dir;           ///< the study's folder
  std::filesystem::path dynamics_program;  ///< cosim-dynamics
  int jobs = 1;                            ///< points run at once
  int retries = 2;                         ///< more attempts for a point killed or lost (no final run.json)
  bool resume = false;                     ///< run only the points without a finished run
  bool progress = false;                   ///< a progress line on stderr (a terminal)
};

/// Why run_sweep ended.
enum class SweepEnd { complete, some_failed, interrupted };

/// Runs every point not finished yet. Throws util::BadInputError when DIR holds another study
/// (or, with resume, none, or one whose points differ), util::OutputError for files it cannot
/// write. Writes DIR/results.csv at the end, also when interrupted (the points finished so far).
SweepEnd run_sweep(const Spec& spec, const RunOptions& options);

/// Asks a running run_sweep to stop: no new point starts, the running ones are asked to stop
/// (they end "interrupted" and a resume runs them again). Async-signal-safe.
void request_stop() noexcept;

}  // namespace cosim::sweep
