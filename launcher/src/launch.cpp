#include "launch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "cosim/fmi/shipped_scene.hpp"
#include "cosim/platform/console.hpp"
#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/run/run_folder.hpp"
#include "cosim/run/run_summary.hpp"
#include "cosim/run/visual_summary.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "private_channel.hpp"

namespace cosim::launcher {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// How often the wait loop looks at the children and the interrupt count.
constexpr std::chrono::milliseconds kPoll(10);
/// After cosim-dynamics failed, how long the visual side gets to end by itself (it does at
/// once when told by an Error or a closed channel) before it is stopped: one still waiting
/// to connect would otherwise wait its whole --open-timeout. (A dynamics that ended without a
/// run.json never opened the channel: its visual side is stopped at once.)
constexpr std::chrono::seconds kPeerGrace(2);
/// After the visual side failed, how long cosim-dynamics gets to end by itself: at once when
/// connected (the viewer's Error or closed channel), never when still waiting for it.
constexpr std::chrono::milliseconds kDynamicsGrace(500);
/// The --open-timeout both sides get on the private channel: the largest they take (a day), so
/// that a slow start (a cold cache, a first VTK window) never times out. Only the launcher ends
/// their wait for each other: a side that ends before connecting takes the other along
/// (supervise_run), and both stop with the launcher (stop_with_parent).
constexpr std::string_view kPrivateOpenTimeout_s = "86400";
/// After a third interrupt, how long the children get to end at once (as they do on their
/// third) before they are killed.
constexpr std::chrono::seconds kKillGrace(2);

/// Interrupts seen so far. The handler only counts (async-signal-safe); the wait loop acts.
std::atomic<int> g_interrupts{0};
static_assert(std::atomic<int>::is_always_lock_free);
void count_interrupt() noexcept { g_interrupts.fetch_add(1, std::memory_order_relaxed); }

void say(const std::string& line) { std::fprintf(stderr, "cosim: %s\n", line.c_str()); }

// ---- the programs next to cosim ----

/// The folder holding cosim, where its sibling programs are, and their file name ending
/// (".exe" on Windows, none on POSIX: cosim's own).
struct Programs {
  fs::path folder;
  fs::path suffix;

  fs::path path(std::string_view name) const {
    fs::path file = folder / name;
    file += suffix;
    return file;
  }
  bool has(std::string_view name) const {
    std::error_code ec;
    return fs::is_regular_file(path(name), ec);
  }
};

Programs find_programs() {
  const fs::path self = platform::executable_path();
  if (self.empty()) {
    throw util::CosimError(util::kExitInternal, "the system does not say where cosim is, so where cosim-dynamics is");
  }
  return {self.parent_path(), self.extension()};
}

void require(const Programs& programs, std::string_view name) {
  if (!programs.has(name)) {
    throw util::BadInputError(platform::utf8(programs.path(name)) + ": not found (cosim starts the " +
                              std::string(name) + " next to it; build it)");
  }
}

/// cosim-visual when it is built and not declined, else cosim-recorder.
std::string visual_side(const Programs& programs, bool recorder) {
  if (recorder) return "cosim-recorder";
  if (programs.has("cosim-visual")) return "cosim-visual";
  say("cosim-visual is not built; the visual side is the recorder stub (no graphics)");
  return "cosim-recorder";
}

// ---- options ----

/// A backend name also names the run folder: letters, digits, '_' and '-' only.
void check_backend_name(const std::string& backend) {
  const bool ok = !backend.empty() && backend.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                          std::string::npos;
  if (!ok) throw util::BadInputError("--backend '" + backend + "': not a backend name (see cosim-dynamics --list-backends)");
}

void check_channel(const std::string& spec) {
  if (spec == "none" || spec.starts_with("mem:")) {
    throw util::BadInputError("--channel '" + spec +
                              "': the two sides are two processes and need a channel between them (leave "
                              "--channel out for a private one)");
  }
}

// ---- the run folder and the channel ----

/// The run folder, absolute; `created` when cosim made it (and removes it if left empty).
struct RunFolder {
  fs::path path;
  bool created = false;
};

RunFolder prepare_run_folder(const LaunchOptions& options) {
  if (!options.out.empty()) {
    // Checked as cosim-dynamics checks it, before anything starts: a folder that holds a run
    // is refused here, not after its report was written again.
    const fs::path out = fs::absolute(platform::path_from_utf8(options.out)).lexically_normal();
    std::error_code ec;
    const bool existed = fs::exists(out, ec);
    return {run::create_run_folder(out).dir, !existed};
  }
  // runs/ of the current folder, named as cosim-dynamics names it alone.
  return {run::create_new_run_folder(fs::absolute(run::default_run_dir(options.backend))).dir, true};
}

/// Removes the private channel's folder when the run is over, however it ends.
struct ChannelFolder {
  fs::path folder;
  ChannelFolder() = default;
  ChannelFolder(const ChannelFolder&) = delete;
  ChannelFolder& operator=(const ChannelFolder&) = delete;
  ~ChannelFolder() { remove(); }
  void remove() noexcept {
    if (folder.empty()) return;
    std::error_code ec;
    fs::remove_all(folder, ec);
    folder.clear();
  }
};

// ---- children ----

struct Side {
  std::string name;
  std::unique_ptr<platform::Process> process;
  std::optional<int> exit_code;

  bool running() const { return process != nullptr && !exit_code; }
};

Side start(const Programs& programs, const std::string& name, const std::vector<std::string>& args, bool verbose) {
  try {
    // Stopped with the launcher however it ends, a SIGKILL too: no side runs on alone.
    const platform::ProcessOptions with_launcher{.stop_with_parent = true};
    Side side{name, std::make_unique<platform::Process>(platform::utf8(programs.path(name)), args, with_launcher),
              std::nullopt};
    if (verbose) {
      std::string line = "started " + name + ", pid " + std::to_string(side.process->id()) + ":";
      for (const std::string& arg : args) line += " " + arg;
      say(line);
    }
    return side;
  } catch (const platform::ProcessStartError& e) {
    throw util::BadInputError(e.what());
  }
}

/// Whether the user gave cosim-dynamics an --open-timeout of their own (after "--").
bool gives_open_timeout(const LaunchOptions& options) {
  return std::any_of(options.dynamics_args.begin(), options.dynamics_args.end(), [](const std::string& arg) {
    return arg == "--open-timeout" || arg.starts_with("--open-timeout=");
  });
}

/// For the fmu backend: the scene the FMU (the last fmu= parameter, found as cosim-dynamics
/// finds it: as given, then among the FMUs shipped with cosim) ships in resources/cosim/scene/,
/// unpacked into the user's cache (fmi::shipped_scene), where both sides read it; "" when it
/// ships none (both sides then take the scene named after its model) or it cannot be read
/// (cosim-dynamics says why).
std::string fmu_scene_of(const LaunchOptions& options) {
  for (auto it = options.param_overrides.rbegin(); it != options.param_overrides.rend(); ++it) {
    if (!it->starts_with("fmu=")) continue;
    const fs::path given = platform::path_from_utf8(it->substr(4));
    std::error_code ec;
    fs::path file = given;
    if (!fs::is_regular_file(file, ec) && given.is_relative()) {
      file = platform::executable_path().parent_path().parent_path() / "share" / "cosim" / "fmus" / given;
    }
    if (!fs::is_regular_file(file, ec)) return {};
    try {
      const auto scene = fmi::shipped_scene(file);
      return scene ? platform::utf8(*scene) : std::string();
    } catch (const util::CosimError&) {
      return {};
    }
  }
  return {};
}

/// The scene both sides draw: --scene; else, for the fmu backend, the scene its FMU ships;
/// else, for the mujoco backend, the model= file the user
/// gave (a model is its own scene, as cosim-dynamics decides it: BackendEntry::scene_for), found
/// as the dynamics finds it; else none (each side finds the backend's default scene). Given to
/// both sides, so that they draw and compare the same probes.
std::string scene_of(const LaunchOptions& options) {
  if (!options.scene.empty()) return options.scene;
  if (options.backend == "fmu") return fmu_scene_of(options);
  if (options.backend != "mujoco") return options.scene;
  for (auto it = options.param_overrides.rbegin(); it != options.param_overrides.rend(); ++it) {
    if (!it->starts_with("model=")) continue;  // the last one wins, as in cosim-dynamics
    const fs::path model = platform::path_from_utf8(it->substr(6));
    const auto found = scene::find_input_file(model);
    return found ? platform::utf8(*found) : std::string();  // not found: the dynamics says so
  }
  return {};
}

/// `open_timeout`: an --open-timeout for the side, or empty for none (its own default).
std::vector<std::string> dynamics_args(const LaunchOptions& options, const std::string& scene, const std::string& channel,
                                       const fs::path& run_dir, std::string_view open_timeout) {
  std::vector<std::string> args{"--backend", options.backend, "--fps",     options.fps,
                                "--mode",    options.mode,    "--rate",    options.rate,
                                "--channel", channel,         "--out",     platform::utf8(run_dir)};
  // Not given: the dynamics runs the backend's natural duration.
  if (!options.duration_s.empty()) args.insert(args.end(), {"--duration", options.duration_s});
  if (!open_timeout.empty()) args.insert(args.end(), {"--open-timeout", std::string(open_timeout)});
  if (!scene.empty()) args.insert(args.end(), {"--scene", scene});
  for (const std::string& folder : options.package_path) args.insert(args.end(), {"--package-path", folder});
  if (!options.params.empty()) args.insert(args.end(), {"--params", options.params});
  for (const std::string& override : options.param_overrides) args.insert(args.end(), {"--param", override});
  for (const std::string& probe : options.probes) args.insert(args.end(), {"--probe", probe});
  args.insert(args.end(), options.dynamics_args.begin(), options.dynamics_args.end());
  return args;
}

std::vector<std::string> visual_args(const LaunchOptions& options, const std::string& scene, const std::string& name,
                                     const std::string& channel, const fs::path& run_dir, std::string_view open_timeout) {
  std::vector<std::string> args{"--channel", channel, "--out", platform::utf8(run_dir)};
  if (!open_timeout.empty()) args.insert(args.end(), {"--open-timeout", std::string(open_timeout)});
  if (!scene.empty()) args.insert(args.end(), {"--scene", scene});
  for (const std::string& folder : options.package_path) args.insert(args.end(), {"--package-path", folder});
  if (name == "cosim-recorder") args.push_back("--quiet");  // the dynamics prints the summary
  args.insert(args.end(), options.visual_options.begin(), options.visual_options.end());
  return args;
}

/// After a run with cosim-visual: how many frames it showed, from its visual.json; nothing
/// when there is none (it ended before the frames) or it cannot be read (said).
void tell_frames_rendered(const fs::path& run_dir) {
  const fs::path file = run::visual_summary_file(run_dir, "cosim-visual");
  std::error_code ec;
  if (!fs::exists(file, ec)) return;
  try {
    const run::VisualSummary v = run::read_visual_summary(file);
    if (v.frames_skipped > 0) {
      say("cosim-visual showed " + std::to_string(v.frames_shown) + " of " + std::to_string(v.frames_received) +
          " frames (" + std::to_string(v.frames_skipped) +
          " skipped: the dynamics did not wait; --mode lockstep shows every frame)");
    }
  } catch (const util::CosimError& e) {
    say(std::string("warning: ") + e.what());
  }
}

/// Asks a side to stop cleanly, and says so when the system could only end it.
void stop(Side& side) {
  if (!side.process->terminate()) say(side.name + " could not be asked to stop (no shared console, no stop event): ended it");
}

/// Interrupts passed on so far, and when the children are killed after a third one.
struct Interrupts {
  int forwarded = 0;
  std::optional<Clock::time_point> kill_at;
};

/// Passes each new interrupt on to the children still running, in order (the dynamics
/// first: it is the one that records why the run ended); kills them once a third
/// interrupt is overdue.
void forward_interrupts(std::span<Side* const> sides, Interrupts& state) {
  const int seen = g_interrupts.load(std::memory_order_relaxed);
  if (seen > state.forwarded) {
    if (state.forwarded == 0) say("stopping...");
    state.forwarded = seen;
    for (Side* side : sides) {
      if (side->running()) stop(*side);
    }
    if (seen >= 3 && !state.kill_at) state.kill_at = Clock::now() + kKillGrace;
  }
  if (state.kill_at && Clock::now() >= *state.kill_at) {
    for (Side* side : sides) {
      if (!side->running()) continue;
      say(side->name + " did not stop after three interrupts: killed");
      side->process->kill();
    }
    state.kill_at.reset();
  }
}

/// Waits until no side runs, forwarding interrupts; `each_round` runs between polls.
void supervise(std::span<Side* const> sides, Interrupts& interrupts, const std::function<void()>& each_round = {}) {
  for (;;) {
    forward_interrupts(sides, interrupts);
    bool any_running = false;
    for (Side* side : sides) {
      if (side->running()) side->exit_code = side->process->wait_for(kPoll);
      any_running = any_running || side->running();
    }
    if (!any_running) {
      // Interrupts that came while these ended were theirs: not for what runs next.
      forward_interrupts({}, interrupts);
      return;
    }
    if (each_round) each_round();
  }
}

/// Both sides until they end. A side that fails normally takes its peer along (an Error or a
/// closed channel ends it at once); one still waiting to connect is stopped after its grace
/// (a viewer that refused an option before connecting would leave the dynamics waiting its
/// whole --open-timeout), at once after a dynamics that ended, even with exit 0 (--version
/// after "--"), without writing run.json into `run_dir`: it never opened the channel. Returns
/// the side that crashed, else the side that failed first, or null.
const Side* supervise_run(Side& dynamics, Side& visual, const fs::path& run_dir, Interrupts& interrupts) {
  struct Watch {
    Side& failed;
    Side& peer;
    Clock::duration grace;
    std::optional<Clock::time_point> stop_peer_at{};
    bool peer_stopped = false;
  };
  Watch watches[] = {{dynamics, visual, kPeerGrace}, {visual, dynamics, kDynamicsGrace}};
  const Side* first_failure = nullptr;
  bool visual_followed = false;  // stopped as the dynamics ended before opening the channel
  Side* const sides[] = {&dynamics, &visual};
  supervise(sides, interrupts, [&] {
    std::error_code ec;
    if (dynamics.exit_code && visual.running() && !visual_followed && interrupts.forwarded == 0 &&
        !fs::exists(run_dir / "run.json", ec)) {
      say(dynamics.name + " ended (exit " + std::to_string(*dynamics.exit_code) +
          ") before opening the channel; stopping " + visual.name);
      stop(visual);
      visual_followed = true;
      watches[0].peer_stopped = true;
    }
    for (Watch& w : watches) {
      if (w.failed.exit_code.value_or(0) == 0) continue;
      if (&w.failed == &visual && visual_followed) continue;  // it only followed the dynamics
      if (first_failure == nullptr) first_failure = &w.failed;
      if (w.peer_stopped || !w.peer.running() || first_failure != &w.failed) continue;
      if (!w.stop_peer_at) w.stop_peer_at = Clock::now() + w.grace;
      if (Clock::now() < *w.stop_peer_at) continue;
      say(w.failed.name + " failed (exit " + std::to_string(*w.failed.exit_code) + "); stopping " + w.peer.name);
      stop(w.peer);
      w.peer_stopped = true;
    }
  });
  if (first_failure == nullptr) {  // both ended within one poll: the dynamics, unless it only followed
    const bool followed = dynamics.exit_code == util::kExitPeerFailure && visual.exit_code.value_or(0) != 0;
    if (dynamics.exit_code.value_or(0) != 0) first_failure = followed ? &visual : &dynamics;
    else if (visual.exit_code.value_or(0) != 0 && !visual_followed) first_failure = &visual;
  }
  // A side that crashed is the cause, whichever was seen ending first: its peer only saw the
  // channel close (a peer error of its own, which may reach the poll first).
  for (const Side* side : sides) {
    if (side->exit_code && !platform::crash_description(*side->exit_code).empty()) return side;
  }
  return first_failure;
}

/// cosim-report RUN_DIR when the dynamics left a run.json of a run that sent frames; a
/// failure is said, not fatal.
void write_report(const Programs& programs, const fs::path& run_dir, Interrupts& interrupts) {
  std::error_code ec;
  if (!fs::exists(run_dir / "run.json", ec)) return;
  try {
    const run::RunSummary summary = run::read_run_summary(run_dir / "run.json");
    if (summary.status == "running") {  // written at the start, never replaced
      say("no report: run.json still says running (cosim-dynamics did not end the run: killed or crashed)");
      return;
    }
    if (summary.totals.frames_sent == 0) {
      say("no report: the run ended before its first frame");
      return;
    }
  } catch (const util::CosimError& e) {
    say(std::string("no report: ") + e.what());
    return;
  }
  try {
    require(programs, "cosim-report");
    Side report = start(programs, "cosim-report", {platform::utf8(run_dir)}, false);
    Side* const sides[] = {&report};
    supervise(sides, interrupts);
    if (*report.exit_code != 0) say("no report (cosim-report failed, exit " + std::to_string(*report.exit_code) + ")");
  } catch (const util::CosimError& e) {
    say(std::string("no report: ") + e.what());
  }
}

/// Says where the run folder and the report are; removes a run folder cosim made that
/// nobody wrote into.
void tell_where(const RunFolder& run) {
  std::error_code ec;
  if (run.created && fs::is_empty(run.path, ec)) {
    fs::remove(run.path, ec);
    return;
  }
  if (!fs::exists(run.path, ec)) return;
  say("run folder: " + platform::utf8(run.path));
  if (fs::exists(run.path / "report.md", ec)) say("report: " + platform::utf8(run.path / "report.md"));
}

}  // namespace

int launch(const LaunchOptions& options) {
  check_backend_name(options.backend);
  if (!options.channel.empty()) check_channel(options.channel);
  const Programs programs = find_programs();
  require(programs, "cosim-dynamics");
  const std::string visual_name = visual_side(programs, options.recorder);
  require(programs, visual_name);
  if (visual_name != "cosim-visual" && !options.visual_options.empty()) {
    throw util::BadInputError(options.visual_options.front() + " is an option of cosim-visual, and the visual side is " +
                              visual_name + " (no picture)");
  }
  if (visual_name == "cosim-visual" && options.mode == "free") {
    say("warning: --mode free: cosim-dynamics does not wait for the renderer, so most frames will be skipped "
        "(the count comes at the end); --mode lockstep shows every frame");
  }

  // From here on an interrupt is counted, and acted upon by the wait loop, never fatal:
  // whatever is made below is cleaned up.
  platform::install_interrupt_handler(count_interrupt);
  const RunFolder run = prepare_run_folder(options);
  ChannelFolder channel_folder;
  std::string channel = options.channel;
  if (channel.empty()) {
    PrivateChannel made = make_private_channel();
    channel = made.spec;
    channel_folder.folder = made.folder_to_remove;
  }
  if (options.verbose) say("channel " + channel + "; run folder " + platform::utf8(run.path));
  // On the private channel the sides wait for each other as long as both live (the supervision
  // ends the wait); a channel or an --open-timeout of the user's keeps the programs' own limit.
  const std::string_view open_timeout =
      options.channel.empty() && !gives_open_timeout(options) ? kPrivateOpenTimeout_s : std::string_view();

  // One scene for both sides, found once (an FMU's is unpacked into the cache here).
  const std::string scene = scene_of(options);
  Interrupts interrupts;
  Side dynamics =
      start(programs, "cosim-dynamics", dynamics_args(options, scene, channel, run.path, open_timeout), options.verbose);
  Side visual;
  try {
    visual = start(programs, visual_name, visual_args(options, scene, visual_name, channel, run.path, open_timeout),
                   options.verbose);
  } catch (const util::CosimError&) {
    stop(dynamics);  // it would wait for a peer that never comes
    dynamics.process->wait();
    throw;
  }
  const Side* const first_failure = supervise_run(dynamics, visual, run.path, interrupts);
  // A side that crashed (a model's fault in the dynamics) could not say so itself.
  if (first_failure != nullptr) {
    if (const std::string crash = platform::crash_description(*first_failure->exit_code); !crash.empty()) {
      say(first_failure->name + " ended by " + crash + ", exit " + std::to_string(*first_failure->exit_code) +
          "; what it wrote before stays in the run folder");
    }
  }
  channel_folder.remove();

  if (visual_name == "cosim-visual") tell_frames_rendered(run.path);
  if (options.report) write_report(programs, run.path, interrupts);
  tell_where(run);
  if (g_interrupts.load(std::memory_order_relaxed) > 0) return util::kExitInterrupted;
  // The side that failed first says why (the other only followed it).
  return first_failure != nullptr ? *first_failure->exit_code : util::kExitOk;
}

}  // namespace cosim::launcher
