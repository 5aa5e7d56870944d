#pragma once
/// @file
/// Running a study's points (docs/sweeps.md): a local pool of cosim-dynamics processes, each
/// point in its own run folder DIR/<id>/, points.csv and results.csv beside them, a progress
/// line on a terminal, a clean stop on Ctrl-C and a resume that runs only what is missing.

#include <filesystem>
#include <string>
#include <vector>

#include "cosim/sweep/spec.hpp"

namespace cosim::sweep {

/// Where a study's points run with `--executor slurm`: one job array per submission.
struct SlurmOptions {
  std::string partition;                ///< sbatch --partition (empty: the cluster's default)
  std::string time_limit;               ///< sbatch --time, per array task (empty: the partition's)
  int cpus_per_task = 1;                ///< sbatch --cpus-per-task: each task's pool runs this many points at once
  std::vector<std::string> sbatch_args; ///< passed through to sbatch as given
  double task_seconds = 120;            ///< the target length of one task: points per task from the first point's time
  std::filesystem::path sweep_program;  ///< this cosim-sweep (the tasks run it as workers); on storage the nodes share
  std::filesystem::path spec_file;      ///< the sweep file, absolute
};

struct RunOptions {
  std::filesystem::path out_dir;           ///< the study's folder (on storage the nodes share, for slurm)
  std::filesystem::path dynamics_program;  ///< cosim-dynamics
  std::filesystem::path launcher_program;  ///< cosim: points with the recorder (Spec::recorder)
  int jobs = 1;                            ///< points run at once (local; a slurm task's: cpus_per_task)
  int retries = 2;                         ///< more attempts for a point (local) or a task (slurm) killed or lost
  bool resume = false;                     ///< run only the points without a finished run
  bool progress = false;                   ///< a progress line on stderr (a terminal)
  bool slurm = false;                      ///< --executor slurm
  SlurmOptions slurm_options;
};

/// One Slurm array task's share of a submission: runs the points listed on line `task` of
/// `task_file` (ids, space-separated) that have no finished run yet, `jobs` at once, and
/// writes their results (logs/<id>.result); the submitter tabulates. Throws as run_sweep.
void run_worker(const Spec& spec, const RunOptions& options, const std::filesystem::path& task_file, int task);

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
