// A study's points run by a local pool or a Slurm job array (run.hpp).
#include "cosim/sweep/run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/run/run_summary.hpp"
#include "cosim/sweep/metrics.hpp"
#include "cosim/sweep/study_report.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/exit_codes.hpp"

namespace cosim::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<bool> g_stop{false};

// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Every parameter key any point sets, sorted: the parameter columns.
std::vector<std::string> param_columns(const Spec& spec) {
  std::set<std::string> keys;
  for (const Point& p : spec.points) {
    for (const auto& [key, _] : p.params) keys.insert(key);
  }
  return {keys.begin(), keys.end()};
}

std::string point_row(const Point& p, const std::vector<std::string>& columns) {
  std::string row = p.id + "," + csv_field(p.backend) + "," + std::to_string(p.repetition);
  for (const std::string& key : columns) {
    const auto it = p.params.find(key);
    row += ',';
    if (it != p.params.end()) row += csv_field(value_text(it->second));
  }
  return row;
}

std::string points_csv(const Spec& spec) {
  const auto columns = param_columns(spec);
  std::string text = "id,backend,repetition";
  for (const std::string& key : columns) text += "," + csv_field(key);
  text += "\n";
  for (const Point& p : spec.points) text += point_row(p, columns) + "\n";
  return text;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Written beside and renamed over: a reader (the submitter, a resume) never sees half a file.
void write_atomically(const fs::path& file, const std::string& text) {
  if (const std::error_code ec = platform::replace_file(file, text)) {
    throw util::OutputError(file.string() + ": cannot write: " + ec.message());
  }
}

// Control characters out of one line of text (an error line from a log).
std::string one_line(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
}

// The last non-empty line of a log (at most its last 4 KiB), for the error column.
std::string last_line(const fs::path& log) {
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  const std::size_t start = tail.find_last_of('\n');
  return one_line(start == std::string::npos ? tail : tail.substr(start + 1));
}

std::optional<run::RunSummary> finished_run(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_regular_file(folder / "run.json", ec)) return std::nullopt;
  try {
    run::RunSummary s = run::read_run_summary(folder / "run.json");
    if (s.status == "ok" || s.status == "numerical_failure" || s.status == "failed") return s;
  } catch (const util::BadInputError&) {
    // a run.json cut short by a kill: not finished
  }
  return std::nullopt;
}

// A point's final outcome, as its pool recorded it in logs/<id>.result (four lines: exit code,
// status, attempts, error): the record every executor writes and every tabulation reads, so a
// resume or a Slurm submitter sees what the pool that ran it saw.
struct Outcome {
  int exit_code = -1;
  std::string status;  // run.json's, or "lost"
  double wall_s = 0;
  int attempts = 0;
  std::string error;
  bool has_run = false;         // a finished run.json: the report's metrics can be read
  std::vector<double> metrics;  // metric_names order, filled when tabulating
};

fs::path result_file(const fs::path& dir, const std::string& id) { return dir / "logs" / (id + ".result"); }

void record(const fs::path& dir, const std::string& id, int exit_code, const std::string& status, int attempts,
            const std::string& error) {
  write_atomically(result_file(dir, id), std::to_string(exit_code) + "\n" + status + "\n" + std::to_string(attempts) +
                                             "\n" + one_line(error) + "\n");
}

std::optional<Outcome> final_outcome(const fs::path& dir, const std::string& id) {
  std::ifstream in(result_file(dir, id));
  if (!in) return std::nullopt;
  Outcome o;
  std::string code, attempts;
  if (!std::getline(in, code) || !std::getline(in, o.status) || !std::getline(in, attempts)) return std::nullopt;
  std::getline(in, o.error);
  try {
    o.exit_code = std::stoi(code);
    o.attempts = std::stoi(attempts);
  } catch (const std::exception&) {
    return std::nullopt;  // not ours, or cut short: the point runs again
  }
  if (const auto run = finished_run(dir / id)) {
    o.wall_s = run->wall_s;
    if (!run->error.empty()) o.error = one_line(run->error);
    o.has_run = true;
  } else if (o.status != "lost" && o.status != "failed" && o.status != "numerical_failure") {
    return std::nullopt;  // a run that says it finished but has no run.json: runs again
  }
  return o;
}

int attempts_so_far(const fs::path& dir, const std::string& id) {
  std::ifstream in(dir / "logs" / (id + ".attempts"));
  int n = 0;
  return in >> n ? n : 0;
}

// The points of `ids` run `jobs` at once, each retried up to `retries` more times when killed
// or lost; each final outcome recorded. Stops starting points once g_stop is set.
class Pool {
 public:
  Pool(const Spec& spec, const RunOptions& options) : spec_(spec), options_(options), dir_(options.out_dir) {}

  void run(std::deque<const Point*> pending, const std::function<void()>& tick) {
    std::vector<Running> running;
    bool stopping = false;
    while (!pending.empty() || !running.empty()) {
      if (g_stop.load(std::memory_order_relaxed) && !stopping) {
        stopping = true;
        pending.clear();
        for (Running& r : running) r.process->terminate();
      }
      while (!stopping && !pending.empty() && static_cast<int>(running.size()) < options_.jobs) {
        running.push_back(start(*pending.front()));
        pending.pop_front();
      }
      for (auto it = running.begin(); it != running.end();) {
        const std::optional<int> code = it->process->wait_for(std::chrono::milliseconds(0));
        if (!code) {
          ++it;
          continue;
        }
        const Point& p = *it->point;
        const int attempt = it->attempt;
        it = running.erase(it);
        if (const auto run = finished_run(dir_ / p.id)) {
          record(dir_, p.id, *code, run->status, attempt, run->error);
        } else if (*code == util::kExitBadInput || *code == util::kExitInternal || *code == util::kExitNumerical) {
          // Refused before its run folder was written (e.g. a model file that is not there): a
          // result like any other, not retried; the log's last line says why.
          record(dir_, p.id, *code, *code == util::kExitNumerical ? "numerical_failure" : "failed", attempt,
                 last_line(dir_ / "logs" / (p.id + ".log")));
        } else if (stopping || g_stop.load()) {
          // interrupted: no result, a resume runs it again
        } else if (attempt <= options_.retries) {
          pending.push_back(&p);  // killed or lost (a signal, a cut run.json): once more
        } else {
          record(dir_, p.id, *code, "lost", attempt,
                 "no finished run.json after " + std::to_string(attempt) + " attempts (exit " + std::to_string(*code) +
                     "; see logs/" + p.id + ".log)");
        }
      }
      tick();
      // Waiting on the oldest run (not a fixed sleep): a point that ends frees its slot at once.
      if (!running.empty()) (void)running.front().process->wait_for(std::chrono::milliseconds(2));
    }
  }

 private:
  struct Running {
    const Point* point;
    std::unique_ptr<platform::Process> process;
    int attempt;
  };

  Running start(const Point& p) {
    std::error_code ec;
    const fs::path folder = dir_ / p.id;
    if (fs::exists(folder, ec)) {
      if (platform::is_link(folder)) throw util::BadInputError(folder.string() + ": a symbolic link in the study");
      fs::remove_all(folder, ec);  // an unfinished run of ours: it runs again from the start
    }
    fs::remove(result_file(dir_, p.id), ec);
    const int attempt = attempts_so_far(dir_, p.id) + 1;
    write_atomically(dir_ / "logs" / (p.id + ".attempts"), std::to_string(attempt) + "\n");
    // Alone: cosim-dynamics --channel none. With the recorder (a delay study): the launcher
    // starts both sides on a private channel of its own, so points in parallel never meet.
    std::vector<std::string> args{"--backend", p.backend, "--out", platform::utf8(folder)};
    if (spec_.recorder) {
      const auto side = [&](const std::string& key, const std::string& otherwise) {
        const auto it = p.params.find(key);
        return it == p.params.end() ? otherwise : value_text(it->second);
      };
      args.insert(args.end(), {"--recorder", "--no-report", "--fps", side("fps", value_text(spec_.recorder->fps)),
                               "--mode", side("mode", spec_.recorder->mode)});
    } else {
      args.insert(args.end(), {"--channel", "none", "--quiet"});
    }
    if (spec_.params_file) args.insert(args.end(), {"--params", platform::utf8(*spec_.params_file)});
    for (const auto& [key, v] : p.params) {
      if (!is_side_key(key)) args.insert(args.end(), {"--param", key + "=" + value_text(v)});
    }
    if (spec_.duration_s) args.insert(args.end(), {"--duration", value_text(*spec_.duration_s)});
    if (spec_.recorder) args.insert(args.end(), {"--", "--quiet"});  // the rest goes to cosim-dynamics
    if (spec_.output_step_s) args.insert(args.end(), {"--output-step", value_text(*spec_.output_step_s)});
    platform::ProcessOptions po;
    po.stdout_file = po.stderr_file = platform::utf8(dir_ / "logs" / (p.id + ".log"));
    po.stop_with_parent = true;
    const fs::path& program = spec_.recorder ? options_.launcher_program : options_.dynamics_program;
    return {&p, std::make_unique<platform::Process>(platform::utf8(program), args, po), attempt};
  }

  const Spec& spec_;
  const RunOptions& options_;
  fs::path dir_;
};

// The progress line: done (failed), running or queued, rate and ETA, redrawn at most twice a second.
class Progress {
 public:
  Progress(bool on, std::size_t total) : on_(on), total_(total), t0_(Clock::now()), last_(t0_ - std::chrono::seconds(1)) {}
  void show(std::size_t done, std::size_t failed, const std::string& busy, bool final = false) {
    if (!on_) return;
    const auto now = Clock::now();
    if (!final && now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    if (first_done_ < 0) first_done_ = static_cast<long>(done);
    const double elapsed_s = std::chrono::duration<double>(now - t0_).count();
    const double rate = elapsed_s > 0 ? static_cast<double>(done - static_cast<std::size_t>(first_done_)) / elapsed_s : 0.0;
    char line[240];
    if (rate > 0 && done < total_) {
      std::snprintf(line, sizeof line, "\rcosim-sweep: %zu/%zu done (%zu failed), %s, %.2g points/s, ETA %.0f s   ", done,
                    total_, failed, busy.c_str(), rate, static_cast<double>(total_ - done) / rate);
    } else {
      std::snprintf(line, sizeof line, "\rcosim-sweep: %zu/%zu done (%zu failed), %s   ", done, total_, failed, busy.c_str());
    }
    std::fputs(line, stderr);
    if (final) std::fputs("\n", stderr);
    std::fflush(stderr);
  }

 private:
  bool on_;
  std::size_t total_;
  Clock::time_point t0_, last_;
  long first_done_ = -1;
};

// The study's counts from the recorded outcomes: (done, failed).
std::pair<std::size_t, std::size_t> counts(const Spec& spec, const fs::path& dir) {
  std::size_t done = 0, failed = 0;
  for (const Point& p : spec.points) {
    if (const auto o = final_outcome(dir, p.id)) {
      ++done;
      if (o->status == "failed" || o->status == "lost") ++failed;
    }
  }
  return {done, failed};
}

// A path inside single quotes for sh: a quote becomes '\''.
std::string sh_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `program` with `args`, its output into `out_file`; its exit code.
int run_tool(const std::string& program, const std::vector<std::string>& args, const fs::path& out_file) {
  try {
    platform::Process p(program, args, {.stdout_file = platform::utf8(out_file), .stderr_file = platform::utf8(out_file)});
    return p.wait();
  } catch (const platform::ProcessStartError& e) {
    throw util::BadInputError(std::string(e.what()) + " (--executor slurm needs Slurm's " + program + " on PATH)");
  }
}

// Points on a Slurm cluster: the first pending point runs here (its time sets the task size),
// the rest go out in one job array of interleaved shares; the tasks of points left without an
// outcome (a task cancelled, a node lost) are submitted again, up to `retries` times.
void run_on_slurm(const Spec& spec, const RunOptions& options, std::deque<const Point*> pending, Progress& progress) {
  const fs::path dir = options.out_dir, slurm = dir / "slurm";
  const SlurmOptions& so = options.slurm_options;
  std::error_code ec;
  fs::create_directories(slurm, ec);
  if (ec) throw util::OutputError(slurm.string() + ": cannot make the folder: " + ec.message());
  // The first point here, alone: its wall time sizes the tasks.
  const auto probe_start = Clock::now();
  RunOptions one = options;
  one.jobs = 1;
  Pool(spec, one).run({pending.front()}, [] {});
  const double point_s = std::max(0.01, std::chrono::duration<double>(Clock::now() - probe_start).count());
  pending.pop_front();
  if (pending.empty() || g_stop.load()) return;
  const std::size_t per_task = std::max<std::size_t>(
      1, static_cast<std::size_t>(so.task_seconds * static_cast<double>(std::max(1, so.cpus_per_task)) / point_s));
  const std::size_t tasks = (pending.size() + per_task - 1) / per_task;
  std::fprintf(stderr, "cosim-sweep: slurm: %zu points in %zu array tasks of at most %zu (%s took %.2g s here; %g s "
                       "per task, %d CPUs each)\n",
               pending.size(), tasks, per_task, spec.points.front().id.c_str(), point_s, so.task_seconds,
               so.cpus_per_task);
  // Interleaved shares: point k of the pending ones goes to task k mod tasks.
  std::vector<std::string> lines(tasks);
  for (std::size_t k = 0; k < pending.size(); ++k) lines[k % tasks] += (lines[k % tasks].empty() ? "" : " ") + pending[k]->id;
  std::set<std::size_t> to_submit;
  for (std::size_t t = 0; t < tasks; ++t) to_submit.insert(t);

  for (int submission = 1; !to_submit.empty() && !g_stop.load() && submission <= 1 + options.retries; ++submission) {
    const std::string tag = std::to_string(submission);
    const fs::path task_file = slurm / ("tasks-" + tag + ".txt"), script = slurm / ("array-" + tag + ".sh");
    std::string task_text;
    for (const std::string& line : lines) task_text += line + "\n";
    write_atomically(task_file, task_text);
    write_atomically(script, "#!/bin/sh\n# cosim-sweep's array task: a worker running its share of " + dir.string() +
                                 "\nexec " + sh_quoted(platform::utf8(so.sweep_program)) + " " +
                                 sh_quoted(platform::utf8(so.spec_file)) + " -o " + sh_quoted(platform::utf8(dir)) +
                                 " --worker-tasks " + sh_quoted(platform::utf8(task_file)) +
                                 " --worker-task \"$SLURM_ARRAY_TASK_ID\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n");
    fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add, ec);
    std::string indices;
    for (const std::size_t t : to_submit) indices += (indices.empty() ? "" : ",") + std::to_string(t);
    std::vector<std::string> args{"--parsable", "--array=" + indices, "--job-name=cosim-sweep",
                                  "--output=" + platform::utf8(slurm / ("task-" + tag + "-%a.log")),
                                  "--cpus-per-task=" + std::to_string(so.cpus_per_task)};
    if (!so.partition.empty()) args.push_back("--partition=" + so.partition);
    if (!so.time_limit.empty()) args.push_back("--time=" + so.time_limit);
    args.insert(args.end(), so.sbatch_args.begin(), so.sbatch_args.end());
    args.push_back(platform::utf8(script));
    const fs::path said = slurm / ("sbatch-" + tag + ".out");
    if (const int code = run_tool("sbatch", args, said); code != 0) {
      throw util::BadInputError("sbatch refused the job array (exit " + std::to_string(code) + "): " + last_line(said));
    }
    std::string job = read_text(said);
    job = job.substr(0, job.find_first_of(";\r\n"));
    if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos) {
      throw util::BadInputError("sbatch said '" + one_line(read_text(said)) + "', not a job id");
    }
    std::fprintf(stderr, "cosim-sweep: slurm: job %s, array %s\n", job.c_str(), indices.c_str());
    // Followed with squeue (sbatch --wait polls slowly), once a second, until the array has left the queue.
    const fs::path queue = slurm / ("squeue-" + tag + ".out");
    bool cancelled = false;
    for (int squeue_failures = 0;;) {
      if (g_stop.load() && !cancelled) {
        cancelled = true;
        (void)run_tool("scancel", {"--signal=TERM", "--full", job}, slurm / ("scancel-" + tag + ".out"));
      }
      const int code = run_tool("squeue", {"-h", "-j", job, "-o", "%i"}, queue);
      const std::string listed = one_line(read_text(queue));
      if (code == 0 && listed.find_first_not_of(' ') == std::string::npos) break;  // the array has left the queue
      if (code != 0 && listed.find("Invalid job id") != std::string::npos) break;  // ... and been forgotten
      if (code != 0 && ++squeue_failures >= 30) {
        throw util::PeerError("squeue -j " + job + " failed 30 times in a row: " + listed);
      }
      const auto [done, failed] = counts(spec, dir);
      progress.show(done, failed, "job " + job + " in the queue");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    // Tasks with points left (cancelled, lost): again.
    to_submit.clear();
    for (std::size_t t = 0; t < lines.size(); ++t) {
      std::istringstream ids(lines[t]);
      for (std::string id; ids >> id;) {
        if (!final_outcome(dir, id)) to_submit.insert(t);
      }
    }
  }
}

}  // namespace

void request_stop() noexcept { g_stop.store(true, std::memory_order_relaxed); }

void run_worker(const Spec& spec, const RunOptions& options, const fs::path& task_file, int task) {
  std::ifstream in(task_file);
  std::string line;
  for (int t = 0; t <= task && std::getline(in, line); ++t) {
  }
  if (!in && line.empty()) throw util::BadInputError(task_file.string() + ": no line for task " + std::to_string(task));
  std::map<std::string, const Point*> by_id;
  for (const Point& p : spec.points) by_id[p.id] = &p;
  std::deque<const Point*> pending;
  std::istringstream ids(line);
  for (std::string id; ids >> id;) {
    const auto it = by_id.find(id);
    if (it == by_id.end()) throw util::BadInputError(task_file.string() + ": task " + std::to_string(task) + ": no point " + id);
    if (!final_outcome(options.out_dir, id)) pending.push_back(it->second);
  }
  Pool(spec, options).run(pending, [] {});
}

SweepEnd run_sweep(const Spec& spec, const RunOptions& options) {
  g_stop.store(false);
  const fs::path dir = options.out_dir;
  const std::string points_text = points_csv(spec);
  std::error_code ec;
  if (platform::is_link(dir)) throw util::BadInputError(dir.string() + ": a symbolic link; give the folder itself");
  const bool has_study = fs::exists(dir / "points.csv", ec);
  if (options.resume) {
    if (!has_study) throw util::BadInputError(dir.string() + ": no study to resume (no points.csv)");
    if (read_text(dir / "points.csv") != points_text) {
      throw util::BadInputError(dir.string() + "/points.csv: the sweep file's points differ from the study's; "
                                "resume with the sweep file it was started with, or start another folder");
    }
  } else {
    if (has_study) {
      throw util::BadInputError(dir.string() + ": already holds a study; --resume finishes it, or choose another folder");
    }
    fs::create_directories(dir / "logs", ec);
    if (ec) throw util::OutputError(dir.string() + ": cannot make the folder: " + ec.message());
    write_atomically(dir / "points.csv", points_text);
  }
  fs::create_directories(dir / "logs", ec);

  std::deque<const Point*> pending;
  for (const Point& p : spec.points) {
    if (!final_outcome(dir, p.id)) pending.push_back(&p);
  }
  Progress progress(options.progress, spec.points.size());
  if (!pending.empty()) {
    if (options.slurm) {
      run_on_slurm(spec, options, pending, progress);
    } else {
      std::size_t done = spec.points.size() - pending.size(), failed = 0;
      const std::size_t start_done = done;
      std::size_t ticks = 0;
      Pool(spec, options).run(pending, [&] {
        if (++ticks % 25 != 0) return;  // the counts come from the result files: not every 2 ms
        std::tie(done, failed) = counts(spec, dir);
        progress.show(done, failed, std::to_string(std::min<std::size_t>(pending.size() - (done - start_done),
                                                                          static_cast<std::size_t>(options.jobs))) +
                                        " running");
      });
    }
  }
  const auto [done, failed] = counts(spec, dir);
  progress.show(done, failed, "finished", true);

  // results.csv: one row per point, finished or not, in id order; then the plots and report.md.
  const auto columns = param_columns(spec);
  std::string text = "id,backend,repetition";
  for (const std::string& key : columns) text += "," + csv_field(key);
  text += ",exit_code,status,wall_s,attempts";
  const std::vector<std::string> metrics = metric_names(spec);
  for (const std::string& metric : metrics) text += "," + metric;
  text += ",error\n";
  std::vector<std::optional<Outcome>> outcomes;
  std::vector<bool> finished;  // a run with its table: the file's metrics are computed from it
  for (const Point& p : spec.points) {
    outcomes.push_back(final_outcome(dir, p.id));
    const auto& o = outcomes.back();
    finished.push_back(o && (o->status == "ok" || o->status == "numerical_failure"));
  }
  const MetricValues own = column_metrics(spec, dir, finished);
  bool complete = true, all_ran = true;
  std::vector<PointResult> results;
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    const Point& p = spec.points[i];
    text += point_row(p, columns);
    PointResult r;
    r.point = &p;
    auto& o = outcomes[i];
    if (!o) {
      r.status = "not_run";
      text += ",,not_run,,";
      for (std::size_t m = 0; m < metrics.size(); ++m) text += ",";
      text += ",\n";
      all_ran = false;
      results.push_back(r);
      continue;
    }
    o->metrics = o->has_run ? run_metrics(dir / p.id, spec.recorder.has_value()) : std::vector<double>{};
    o->metrics.resize(report_metric_count(spec), std::numeric_limits<double>::quiet_NaN());
    o->metrics.insert(o->metrics.end(), own.values[i].begin(), own.values[i].end());
    r.ran = o->status != "lost";
    r.exit_code = o->exit_code;
    r.status = o->status;
    r.wall_s = o->wall_s;
    r.attempts = o->attempts;
    r.error = o->error;
    r.metrics = o->metrics;
    text += "," + std::to_string(o->exit_code) + "," + o->status + "," + value_text(o->wall_s) + "," +
            std::to_string(o->attempts);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      text += ",";
      if (m < o->metrics.size() && std::isfinite(o->metrics[m])) text += value_text(o->metrics[m]);
    }
    text += "," + csv_field(o->error) + "\n";
    complete = complete && (o->status == "ok" || o->status == "numerical_failure");
    results.push_back(r);
  }
  write_atomically(dir / "results.csv", text);
  write_study_report(spec, dir, results, own.problems);
  // A metric the runs cannot give is the sweep file's mistake: said after the tables are
  // written, so that nothing run is lost (a fixed file and --resume tabulate again).
  if (!own.problems.empty()) {
    throw util::BadInputError(own.problems.front() +
                              (own.problems.size() > 1 ? " (and " + std::to_string(own.problems.size() - 1) +
                                                             " more in report.md)"
                                                       : std::string()) +
                              "; fix the sweep file and --resume to tabulate again");
  }
  if (!all_ran) return SweepEnd::interrupted;
  return complete ? SweepEnd::complete : SweepEnd::some_failed;
}

}  // namespace cosim::sweep
