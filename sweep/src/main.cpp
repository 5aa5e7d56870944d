// cosim-sweep: runs a study of many cosim-dynamics runs described in a sweep file
// (docs/sweeps.md) on this machine, a few at a time, and tabulates them.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/sweep/run.hpp"
#include "cosim/sweep/spec.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/exit_codes.hpp"

namespace {

namespace fs = std::filesystem;

void on_interrupt() noexcept { cosim::sweep::request_stop(); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim-sweep: runs a study — many cosim-dynamics runs over a grid, zipped axes, random samples or "
               "backends, described in a sweep file (docs/sweeps.md) — a few at a time on this machine; each point "
               "in its own run folder, with points.csv and results.csv beside them",
               "cosim-sweep"};
  app.set_version_flag("--version", std::string("cosim-sweep ") + COSIM_SOFTWARE_VERSION);
  fs::path spec_file, out_dir;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int retries = 2;
  bool resume = false, check = false;
  cosim::util::add_path_option(app, "spec", spec_file, "the sweep file (JSON)")->required();
  cosim::util::add_path_option(app, "-o,--out", out_dir, "the study's folder: DIR/<id>/ run folders, points.csv, results.csv")
      ->required()
      ->type_name("DIR");
  app.add_option("-j,--jobs", jobs, "points run at once (default: the number of cores)")
      ->check(CLI::Range(1, 1024))
      ->type_name("NUMBER");
  app.add_option("--retries", retries, "more attempts for a point whose run was killed or lost")
      ->capture_default_str()
      ->check(CLI::Range(0, 100))
      ->type_name("NUMBER");
  app.add_flag("--resume", resume, "finish a study started in DIR: run only the points without a finished run");
  app.add_flag("--check", check, "read and check the sweep file and print its points; run nothing");
  std::string executor = "local";
  cosim::sweep::SlurmOptions slurm;
  app.add_option("--executor", executor, "where the points run: this machine's pool, or Slurm job arrays")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  app.add_option("--partition", slurm.partition, "slurm: sbatch --partition (default: the cluster's)");
  app.add_option("--time", slurm.time_limit, "slurm: sbatch --time of each array task, e.g. 00:30:00");
  app.add_option("--cpus-per-task", slurm.cpus_per_task, "slurm: CPUs of each array task, which runs that many points at once")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--task-seconds", slurm.task_seconds,
                 "slurm: the target length of an array task [s]; points per task = this / the first point's time "
                 "(which runs here first) × CPUs per task")
      ->check(cosim::util::finite_range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--sbatch-arg", slurm.sbatch_args, "slurm: an option passed to sbatch as is (repeatable), e.g. --sbatch-arg=--qos=short")
      ->allow_extra_args(false);
  // An array task's own command line (the batch script writes it), not a user's.
  std::filesystem::path worker_tasks;
  int worker_task = -1;
  cosim::util::add_path_option(app, "--worker-tasks", worker_tasks, "")->group("");
  app.add_option("--worker-task", worker_task, "")->group("");
  app.footer("Examples:\n"
             "  cosim-sweep examples/sweeps/robotino_gains.json -o runs/gains\n"
             "  cosim-sweep examples/sweeps/robotino_gains.json -o runs/gains --resume    after a Ctrl-C\n"
             "  cosim-sweep study.json -o /shared/study --executor slurm --partition debug --cpus-per-task 4\n"
             "Exit status: 0 every point ran (a numerical failure is a result), 1 some point failed or was lost "
             "(results.csv says which), 2 a bad sweep file or options, 130 interrupted (--resume finishes it).");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    const cosim::sweep::Spec spec = cosim::sweep::read_spec(spec_file);
    if (check) {
      for (const auto& p : spec.points) {
        std::string line = p.id + " " + p.backend;
        for (const auto& [key, v] : p.params) line += " " + key + "=" + cosim::sweep::value_text(v);
        std::printf("%s\n", line.c_str());
      }
      return cosim::util::kExitOk;
    }
    const fs::path self = cosim::platform::executable_path();
    cosim::sweep::RunOptions o;
    o.out_dir = fs::absolute(out_dir);
    o.dynamics_program = self.parent_path() / ("cosim-dynamics" + self.extension().string());
    o.launcher_program = self.parent_path() / ("cosim" + self.extension().string());
    o.jobs = jobs;
    o.retries = retries;
    o.resume = resume;
    o.progress = cosim::platform::stderr_is_terminal();
    o.slurm = executor == "slurm";
    slurm.sweep_program = self;
    slurm.spec_file = fs::absolute(spec_file);
    o.slurm_options = slurm;
    cosim::platform::install_interrupt_handler(&on_interrupt);
    if (!worker_tasks.empty()) {  // an array task: its share, no tables
      o.progress = false;
      cosim::sweep::run_worker(spec, o, worker_tasks, worker_task);
      return cosim::util::kExitOk;
    }
    const auto end = cosim::sweep::run_sweep(spec, o);
    std::printf("cosim-sweep: %zu points; results: %s\n", spec.points.size(),
                cosim::platform::utf8(out_dir / "results.csv").c_str());
    switch (end) {
      case cosim::sweep::SweepEnd::complete: return cosim::util::kExitOk;
      case cosim::sweep::SweepEnd::some_failed: return cosim::util::kExitInternal;
      case cosim::sweep::SweepEnd::interrupted:
        std::fprintf(stderr, "cosim-sweep: interrupted; --resume runs the points left\n");
        return cosim::util::kExitInterrupted;
    }
  } catch (const cosim::util::CosimError& e) {
    std::fprintf(stderr, "cosim-sweep: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {  // a bug, or cosim-dynamics missing beside cosim-sweep
    std::fprintf(stderr, "cosim-sweep: error: %s\n", e.what());
    return cosim::util::kExitInternal;
  }
  return cosim::util::kExitInternal;
}
