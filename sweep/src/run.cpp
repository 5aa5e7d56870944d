// The local pool of a study (run.hpp).
#include "cosim/sweep/run.hpp"
#include "cosim/sweep/study_report.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/run/run_summary.hpp"
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

// Written beside and renamed over: a reader never sees half a file.
void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw util::OutputError(file.string() + ": cannot write");
  }
  std::error_code ec;
  fs::rename(partial, file, ec);
  if (ec) throw util::OutputError(file.string() + ": cannot write: " + ec.message());
}

// What a point's run folder says: its final status, or nothing (no run, or one that did not
// finish: it runs again).
struct Outcome {
  bool final = false;
  int exit_code = -1;
  std::string status;  // run.json's, or "lost"
  double wall_s = 0;
  int attempts = 0;
  std::string error;
  std::vector<double> metrics;  // kMetricColumns order
};

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
  return start == std::string::npos ? tail : tail.substr(start + 1);
}

int exit_code_of_status(const std::string& status) {
  if (status == "ok") return util::kExitOk;
  if (status == "numerical_failure") return util::kExitNumerical;
  return util::kExitBadInput;  // "failed": refused input (a bug says 1 in the log)
}

struct Running {
  const Point* point;
  std::unique_ptr<platform::Process> process;
  Clock::time_point started;
  int attempt;
};

}  // namespace

void request_stop() noexcept { g_stop.store(true, std::memory_order_relaxed); }

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

  std::map<std::string, Outcome> outcomes;
  std::deque<const Point*> pending;
  for (const Point& p : spec.points) {
    if (const auto run = finished_run(dir / p.id)) {
      outcomes[p.id] = {true, exit_code_of_status(run->status), run->status, run->wall_s, 0, run->error,
                        run_metrics(dir / p.id)};
    } else {
      pending.push_back(&p);
    }
  }
  const std::size_t total = spec.points.size(), already = spec.points.size() - pending.size();

  std::vector<Running> running;
  std::map<std::string, int> attempts;
  std::size_t done = 0, failed = 0;
  const auto t0 = Clock::now();
  auto last_progress = t0 - std::chrono::seconds(1);
  const auto start = [&](const Point& p) {
    const fs::path folder = dir / p.id;
    if (fs::exists(folder, ec)) {
      if (platform::is_link(folder)) throw util::BadInputError(folder.string() + ": a symbolic link in the study");
      fs::remove_all(folder, ec);  // an unfinished run of ours: it runs again from the start
    }
    std::vector<std::string> args{"--backend", p.backend, "--channel", "none", "--quiet", "--out",
                                  platform::utf8(folder)};
    if (spec.params_file) args.insert(args.end(), {"--params", platform::utf8(*spec.params_file)});
    for (const auto& [key, v] : p.params) args.insert(args.end(), {"--param", key + "=" + value_text(v)});
    if (spec.duration_s) args.insert(args.end(), {"--duration", value_text(*spec.duration_s)});
    if (spec.output_step_s) args.insert(args.end(), {"--output-step", value_text(*spec.output_step_s)});
    platform::ProcessOptions po;
    po.stdout_file = po.stderr_file = platform::utf8(dir / "logs" / (p.id + ".log"));
    po.stop_with_parent = true;
    const int attempt = ++attempts[p.id];
    running.push_back({&p, std::make_unique<platform::Process>(platform::utf8(options.dynamics_program), args, po),
                       Clock::now(), attempt});
  };
  const auto show_progress = [&](bool final) {
    if (!options.progress) return;
    const auto now = Clock::now();
    if (!final && now - last_progress < std::chrono::milliseconds(500)) return;
    last_progress = now;
    const double elapsed_s = std::chrono::duration<double>(now - t0).count();
    const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0.0;
    const std::size_t left = total - already - done;
    char line[200];
    if (rate > 0 && left > 0) {
      std::snprintf(line, sizeof line, "\rcosim-sweep: %zu/%zu done (%zu failed), %zu running, %.2g points/s, ETA %.0f s   ",
                    already + done, total, failed, running.size(), rate, static_cast<double>(left) / rate);
    } else {
      std::snprintf(line, sizeof line, "\rcosim-sweep: %zu/%zu done (%zu failed), %zu running   ", already + done, total,
                    failed, running.size());
    }
    std::fputs(line, stderr);
    if (final) std::fputs("\n", stderr);
    std::fflush(stderr);
  };

  bool stopping = false;
  while (!pending.empty() || !running.empty()) {
    if (g_stop.load(std::memory_order_relaxed) && !stopping) {
      stopping = true;
      pending.clear();
      for (Running& r : running) r.process->terminate();
    }
    while (!stopping && !pending.empty() && static_cast<int>(running.size()) < options.jobs) {
      const Point* p = pending.front();
      pending.pop_front();
      start(*p);
    }
    for (auto it = running.begin(); it != running.end();) {
      const std::optional<int> code = it->process->wait_for(std::chrono::milliseconds(0));
      if (!code) {
        ++it;
        continue;
      }
      const double wall_s = std::chrono::duration<double>(Clock::now() - it->started).count();
      const Point& p = *it->point;
      const auto run = finished_run(dir / p.id);
      if (run) {
        outcomes[p.id] = {true, *code, run->status, run->wall_s, it->attempt, run->error, run_metrics(dir / p.id)};
        ++done;
        if (run->status == "failed") ++failed;
      } else if (*code == util::kExitBadInput || *code == util::kExitInternal || *code == util::kExitNumerical) {
        // Refused before its run folder was written (e.g. a model file that is not there): a
        // result like any other, not retried; the log's last line says why.
        outcomes[p.id] = {true, *code, *code == util::kExitNumerical ? "numerical_failure" : "failed", wall_s,
                          it->attempt, last_line(dir / "logs" / (p.id + ".log")), {}};
        ++done;
        if (*code != util::kExitNumerical) ++failed;
      } else if (!stopping && !g_stop.load() && it->attempt <= options.retries) {
        pending.push_back(&p);  // killed or lost (a signal, a cut run.json): once more
      } else if (!stopping && !g_stop.load()) {
        outcomes[p.id] = {true, *code, "lost", wall_s, it->attempt,
                          "no finished run.json after " + std::to_string(it->attempt) + " attempts (exit " +
                              std::to_string(*code) + "; see logs/" + p.id + ".log)", {}};
        ++done;
        ++failed;
      }
      it = running.erase(it);
    }
    show_progress(false);
    // Waiting on the oldest run (not a fixed sleep): a point that ends frees its slot at once.
    if (!running.empty()) (void)running.front().process->wait_for(std::chrono::milliseconds(2));
  }
  show_progress(true);

  // results.csv: one row per point, finished or not, in id order; then the plots and report.md.
  const auto columns = param_columns(spec);
  std::string text = "id,backend,repetition";
  for (const std::string& key : columns) text += "," + csv_field(key);
  text += ",exit_code,status,wall_s,attempts";
  for (const char* metric : kMetricColumns) text += std::string(",") + metric;
  text += ",error\n";
  bool complete = true, all_ran = true;
  std::vector<PointResult> results;
  for (const Point& p : spec.points) {
    text += point_row(p, columns);
    PointResult r;
    r.point = &p;
    const auto it = outcomes.find(p.id);
    if (it == outcomes.end()) {
      r.status = "not_run";
      text += ",,not_run,,";
      for (std::size_t m = 0; m < kMetricColumns.size(); ++m) text += ",";
      text += ",\n";
      all_ran = false;
      results.push_back(r);
      continue;
    }
    const Outcome& o = it->second;
    r.ran = o.status != "lost";
    r.exit_code = o.exit_code;
    r.status = o.status;
    r.wall_s = o.wall_s;
    r.attempts = o.attempts;
    r.error = o.error;
    r.metrics = o.metrics;
    text += "," + std::to_string(o.exit_code) + "," + o.status + "," + value_text(o.wall_s) + "," +
            std::to_string(o.attempts);
    for (std::size_t m = 0; m < kMetricColumns.size(); ++m) {
      text += ",";
      if (m < o.metrics.size() && std::isfinite(o.metrics[m])) text += value_text(o.metrics[m]);
    }
    text += "," + csv_field(o.error) + "\n";
    complete = complete && (o.status == "ok" || o.status == "numerical_failure");
    results.push_back(r);
  }
  write_atomically(dir / "results.csv", text);
  write_study_report(spec, dir, results);
  if (!all_ran) return SweepEnd::interrupted;
  return complete ? SweepEnd::complete : SweepEnd::some_failed;
}

}  // namespace cosim::sweep
