// cosim-sweep through the real programs: every point of a study runs in its own folder and is
// tabulated; Ctrl-C stops it cleanly and --resume runs only what is left; a run killed from
// outside is retried; a numerical failure is a result and a refused run does not stop the
// others. The points are MuJoCo models written here: one fast (1 ms steps), one slow (1 µs
// steps: seconds per run, to be caught running), one that MuJoCo cannot integrate.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <signal.h>

#include "cosim/run/run_summary.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

namespace fs = std::filesystem;

const std::string kFastModel = R"(<mujoco model="Swing"><option timestep="0.001"/><worldbody><body name="bob" pos="0 0 1">
<joint name="swing" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.05" mass="1" pos="0 0 -0.5"/></body></worldbody></mujoco>
)";
// The same at 1 µs steps: 10 s of it take seconds.
const std::string kSlowModel = [] {
  std::string text = kFastModel;
  text.replace(text.find("0.001"), 5, "0.000001");
  return text;
}();
// A stiff spring under explicit Euler at ω·h = 10: MuJoCo finds it unstable (MODEL.md §5), exit 5.
const std::string kUnstableModel = R"(<mujoco model="Swing"><option timestep="0.1" integrator="Euler" gravity="0 0 0"/>
<worldbody><body name="bob"><joint name="swing" type="slide" axis="1 0 0" stiffness="10000"/>
<geom type="sphere" size="0.05" mass="1"/></body></worldbody><keyframe><key qpos="0.1"/></keyframe></mujoco>
)";

// results.csv as text fields (RFC 4180: a quoted field may hold commas and doubled quotes).
std::vector<std::vector<std::string>> read_rows(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back(fields);
  }
  return rows;
}

class SweepRun : public LoopTest {
 protected:
  void SetUp() override {
    if (!dynamics_has_backend("mujoco")) GTEST_SKIP() << "cosim-dynamics was built without MuJoCo";
  }
  fs::path model(const std::string& name, const std::string& text) const {
    const fs::path file = tmp_.path() / name;
    std::ofstream(file) << text;
    return file;
  }
  // A study of mujoco runs, one per model file, 10 s each.
  fs::path spec(const std::vector<fs::path>& models) const {
    std::string values;
    for (const auto& m : models) values += (values.empty() ? "\"" : ", \"") + m.string() + "\"";
    const fs::path file = tmp_.path() / "study.json";
    std::ofstream(file) << R"({"backend": "mujoco", "duration_s": 10, "output_step_s": 0.5,
      "axes": [{"param": "model", "values": [)" << values << "]}]}\n";
    return file;
  }
  std::unique_ptr<Process> sweep(std::vector<std::string> extra) {
    std::vector<std::string> args{(tmp_.path() / "study.json").string(), "-o", study().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-sweep", args, tmp_.path() / ("sweep" + std::to_string(++runs_)));
  }
  fs::path study() const { return tmp_.path() / "study"; }
  // Waits (≤ 60 s) until `ready` holds.
  static bool wait_until(const std::function<bool()>& ready) {
    for (int i = 0; i < 600 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return ready();
  }
  std::string status_of(const std::string& id) const {
    return run::read_run_summary(study() / id / "run.json").status;
  }
  int runs_ = 0;
};

TEST_F(SweepRun, EveryPointRunsInItsFolderAndIsTabulated) {
  const auto fast = model("fast.xml", kFastModel);
  spec({fast, fast, fast, fast});
  auto p = sweep({"--jobs", "2"});
  ASSERT_EQ(finish(*p, "cosim-sweep", 60), 0) << p->err();
  const auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"id", "backend", "repetition", "model", "exit_code", "status", "wall_s",
                                               "attempts", "max_dev_x_m", "max_dev_y_m", "max_dev_phi_rad", "error"}));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 12u);
    EXPECT_EQ(rows[i][8], "") << "a pendulum has no reference to deviate from";
    EXPECT_EQ(rows[i][0], "p000" + std::to_string(i - 1));
    EXPECT_EQ(rows[i][4], "0");
    EXPECT_EQ(rows[i][5], "ok");
    EXPECT_EQ(rows[i][7], "1");
    EXPECT_EQ(status_of(rows[i][0]), "ok");
  }
  EXPECT_TRUE(fs::exists(study() / "points.csv"));
  // The point's run is the point: its run.json holds the model it was given.
  const auto summary = run::read_run_summary(study() / "p0002" / "run.json");
  bool found = false;
  for (const auto& param : summary.parameters) found = found || (param.key == "model" && std::get<std::string>(param.value) == fast.string());
  EXPECT_TRUE(found);
  // A second start in the same folder is refused: the study is there.
  auto again = sweep({});
  EXPECT_EQ(finish(*again, "cosim-sweep", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(again->err(), "already holds a study; --resume finishes it")) << again->err();
}

TEST_F(SweepRun, CtrlCStopsCleanlyAndResumeRunsOnlyWhatIsLeft) {
  const auto fast = model("fast.xml", kFastModel);
  const auto slow = model("slow.xml", kSlowModel);
  spec({fast, fast, slow, fast});
  auto p = sweep({"--jobs", "1"});
  // p0000 and p0001 done, p0002 (seconds long) running: Ctrl-C.
  ASSERT_TRUE(wait_until([&] { return fs::exists(study() / "p0002" / "run.json"); })) << p->err();
  const std::string first_finished = run::read_run_summary(study() / "p0000" / "run.json").finished_utc;
  p->kill(SIGINT);
  ASSERT_EQ(finish(*p, "cosim-sweep", 30), util::kExitInterrupted) << p->err();
  EXPECT_TRUE(contains(p->err(), "interrupted; --resume runs the points left")) << p->err();
  auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1][5], "ok");
  EXPECT_EQ(rows[2][5], "ok");
  EXPECT_EQ(rows[3][5], "not_run") << "interrupted: it runs again";
  EXPECT_EQ(rows[4][5], "not_run");

  // The slow model made fast, the study resumed: only p0002 and p0003 run, once each.
  model("slow.xml", kFastModel);
  auto resumed = sweep({"--resume", "--jobs", "1"});
  ASSERT_EQ(finish(*resumed, "cosim-sweep --resume", 60), 0) << resumed->err();
  rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][5], "ok") << rows[i][0];
  EXPECT_EQ(rows[3][7], "2") << "p0002: the start Ctrl-C interrupted, and its one run in the resumed study";
  EXPECT_EQ(rows[4][7], "1") << "p0003 had not started";
  EXPECT_EQ(rows[1][7], "1") << "p0000 ran once, before the Ctrl-C";
  EXPECT_EQ(run::read_run_summary(study() / "p0000" / "run.json").finished_utc, first_finished) << "p0000 not run again";
  // A resume with other points is refused.
  spec({fast, fast});
  auto other = sweep({"--resume"});
  EXPECT_EQ(finish(*other, "cosim-sweep --resume", 30), util::kExitBadInput);
  EXPECT_TRUE(contains(other->err(), "the sweep file's points differ from the study's")) << other->err();
}

// A gain study of the Robotino (the backend with a reference): each point's deviation after
// the transient, as cosim-report --json gives it, in results.csv, and drawn against the gain
// with a line per mass in the study's report.md.
TEST_F(SweepRun, MetricsAreTheReportsAndEachIsDrawnAgainstTheSweptParameters) {
  {
    std::ofstream(tmp_.path() / "study.json") << R"({"backend": "robotino", "duration_s": 6, "output_step_s": 0.05,
      "axes": [{"param": "pid_kp_V_s_per_rad", "values": [2, 7.4]}, {"param": "mass_kg", "values": [9, 13]}]})";
  }
  auto p = sweep({});
  ASSERT_EQ(finish(*p, "cosim-sweep", 60), 0) << p->err();
  const auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    Process report(kBinDir / "cosim-report", {"--json", (study() / rows[i][0]).string()}, tmp_.path() / ("report" + rows[i][0]));
    ASSERT_EQ(finish(report, "cosim-report --json", 30), 0) << report.err();
    // The same number, printed the same way: the same code computed it.
    ASSERT_EQ(rows[0][9], "max_dev_x_m");
    EXPECT_TRUE(contains(report.out(), "\"max_x_m\": " + rows[i][9] + ",\n")) << rows[i][9] << "\n" << report.out();
  }
  for (const char* plot : {"max_dev_x_m_vs_pid_kp_V_s_per_rad.png", "max_dev_y_m_vs_mass_kg.png", "wall_s_vs_mass_kg.png"}) {
    EXPECT_TRUE(fs::exists(study() / "plots" / plot)) << plot;
    EXPECT_TRUE(contains(read_file(study() / "report.md"), std::string("(plots/") + plot + ")")) << plot;
  }
  EXPECT_TRUE(contains(read_file(study() / "report.md"), "4 points, 4 ok"));
}

// The sweep file's own metrics, checked against the runs' dynamics.csv read here (test::read_csv,
// not the sweep's reader): a peak over three columns, a difference to the reference point row by
// row; a column no run has is exit 2 after the tables are written, and a fixed file with
// --resume tabulates again without running anything.
TEST_F(SweepRun, TheFilesOwnMetricsComeFromTheRunsAndTheirReferences) {
  const std::string base = R"({"backend": "robotino", "duration_s": 1, "output_step_s": 0.05,
      "axes": [{"cases": [{}, {"mass_kg": 13}]}, {"param": "solver_rtol", "values": [1e-4, 1e-6, 1e-9]}],
      "metrics": [{"name": "dx_m", "column": "Robotino/x_m", "stat": "max_abs", "from_s": 0.5, "against": {"solver_rtol": 1e-9}},
                  {"name": "i_peak_A", "columns": ["i1_A", "i2_A", "i3_A"], "stat": "max_abs"})";
  std::ofstream(tmp_.path() / "study.json") << base << "]}";
  auto p = sweep({});
  ASSERT_EQ(finish(*p, "cosim-sweep", 60), 0) << p->err();
  auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 7u);
  const auto& head = rows[0];
  ASSERT_EQ(head[head.size() - 3], "dx_m");
  ASSERT_EQ(head[head.size() - 2], "i_peak_A");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::string& id = rows[i][0];
    const std::string ref_id = i <= 3 ? "p0002" : "p0005";  // the same case at 1e-9
    const Csv run = read_csv(study() / id / "dynamics.csv"), ref = read_csv(study() / ref_id / "dynamics.csv");
    const auto t = run.values("t_s"), x = run.values("Robotino/x_m"), x_ref = ref.values("Robotino/x_m");
    ASSERT_EQ(x.size(), x_ref.size());
    double dx = 0, peak = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (t[k] >= 0.5 - 1e-9) dx = std::max(dx, std::abs(x[k] - x_ref[k]));
    }
    for (const char* c : {"i1_A", "i2_A", "i3_A"}) {
      for (const double v : run.values(c)) peak = std::max(peak, std::abs(v));
    }
    EXPECT_EQ(std::stod(rows[i][head.size() - 3]), dx) << id;
    EXPECT_EQ(std::stod(rows[i][head.size() - 2]), peak) << id;
    if (id == ref_id) {
      EXPECT_EQ(rows[i][head.size() - 3], "0");
    }
  }
  EXPECT_GT(std::stod(rows[1][head.size() - 3]), 0) << "1e-4 differs from 1e-9";

  // A column no run has: exit 2 naming it, the tables written, nothing run again.
  std::ofstream(tmp_.path() / "study.json") << base
                                            << R"(, {"name": "bad", "column": "no_such_column", "stat": "final"}]})";
  auto bad = sweep({"--resume"});
  ASSERT_EQ(finish(*bad, "cosim-sweep --resume", 60), util::kExitBadInput) << bad->err();
  EXPECT_TRUE(contains(bad->err(), "metrics[2] (bad): no column 'no_such_column' in ")) << bad->err();
  EXPECT_TRUE(contains(bad->err(), "fix the sweep file and --resume to tabulate again")) << bad->err();
  EXPECT_TRUE(contains(read_file(study() / "report.md"), "**Error:**"));
  rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 7u);
  const auto attempts = std::find(rows[0].begin(), rows[0].end(), "attempts") - rows[0].begin();
  ASSERT_LT(attempts, static_cast<std::ptrdiff_t>(rows[0].size()));
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][attempts], "1") << "not run again";
  std::ofstream(tmp_.path() / "study.json") << base << "]}";
  auto fixed = sweep({"--resume"});
  ASSERT_EQ(finish(*fixed, "cosim-sweep --resume", 60), 0) << fixed->err();
  EXPECT_FALSE(contains(read_file(study() / "report.md"), "**Error:**"));
}

// The repository's own studies (examples/sweeps/, which scripts/robotino_study.py and
// scripts/omniwheel_study.py run) stay valid sweep files; the regression over every backend's
// default configuration runs, every point ok.
TEST_F(SweepRun, TheRepositorysSweepFilesAreValidAndTheRegressionOverBackendsPasses) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(COSIM_EXAMPLES_DIR) / "sweeps")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    Process check(kBinDir / "cosim-sweep", {entry.path().string(), "-o", (tmp_.path() / "unused").string(), "--check"},
                  tmp_.path() / ("check" + std::to_string(files)));
    EXPECT_EQ(finish(check, "cosim-sweep --check", 30), 0) << entry.path() << "\n" << check.err();
  }
  EXPECT_GE(files, 7);
  Process regression(kBinDir / "cosim-sweep",
                     {(fs::path(COSIM_EXAMPLES_DIR) / "sweeps" / "regression_backends.json").string(), "-o", study().string()},
                     tmp_.path() / "regression");
  ASSERT_EQ(finish(regression, "cosim-sweep regression_backends.json", 120), 0) << regression.err();
  const auto rows = read_rows(study() / "results.csv");
  const auto status = std::find(rows[0].begin(), rows[0].end(), "status") - rows[0].begin();
  ASSERT_EQ(rows.size(), 8u) << "a point per backend";
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][status], "ok") << rows[i][1];
}

// A delay study: each point a co-simulation with the recorder (the launcher, a private channel
// each, two at once), its frame rate swept; the delays in results.csv are cosim-report --json's.
TEST_F(SweepRun, RecorderPointsAreCoSimulationsWithTheirDelaysTabulated) {
  std::ofstream(tmp_.path() / "study.json") << R"({"backend": "robotino", "duration_s": 2, "recorder": {"mode": "free"},
      "axes": [{"param": "fps", "values": [20, 200, 500]}]})";
  auto p = sweep({"--jobs", "2"});
  ASSERT_EQ(finish(*p, "cosim-sweep", 120), 0) << p->err();
  const auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 4u);
  const auto column = [&](const std::string& name) {
    const auto at = std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin();
    EXPECT_LT(at, static_cast<std::ptrdiff_t>(rows[0].size())) << name;
    return at;
  };
  const auto rtt = column("rtt_us_p50"), delay = column("delay_frames_max"), status = column("status");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][status], "ok") << rows[i][0];
    const auto summary = run::read_run_summary(study() / rows[i][0] / "run.json");
    EXPECT_EQ(summary.fps, std::stod(rows[i][3])) << "the point's own frame rate";
    EXPECT_GT(summary.totals.frames_sent, 0u);
    EXPECT_FALSE(fs::exists(study() / rows[i][0] / "report.md")) << "the study tabulates; no report per point";
    Process report(kBinDir / "cosim-report", {"--json", (study() / rows[i][0]).string()}, tmp_.path() / ("report" + rows[i][0]));
    ASSERT_EQ(finish(report, "cosim-report --json", 30), 0) << report.err();
    EXPECT_NE(rows[i][rtt], "");
    EXPECT_TRUE(contains(report.out(), "\"max\": " + rows[i][delay] + ",")) << rows[i][delay] << "\n" << report.out();
  }
}

// The pid of the cosim-dynamics whose command line holds `needle`, or 0.
pid_t dynamics_pid(const std::string& needle) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find("cosim-dynamics") != std::string::npos && cmdline.find(needle) != std::string::npos) {
      return static_cast<pid_t>(std::stol(name));
    }
  }
  return 0;
}

TEST_F(SweepRun, AKilledRunIsRetriedAndFailuresAreResultsNotStops) {
  const auto fast = model("fast.xml", kFastModel);
  const auto slow = model("slow.xml", kSlowModel);
  const auto unstable = model("unstable.xml", kUnstableModel);
  spec({slow, unstable, fast});
  auto p = sweep({"--jobs", "1"});
  pid_t child = 0;
  // Running its slow model: its run.json ("running") is written once the model is loaded. (A
  // model swapped before that would make the first run quick, and a kill would find it over.)
  ASSERT_TRUE(wait_until([&] {
    return fs::exists(study() / "p0000" / "run.json") && (child = dynamics_pid((study() / "p0000").string())) != 0;
  })) << p->err();
  model("slow.xml", kFastModel);  // its second attempt is quick
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ASSERT_EQ(finish(*p, "cosim-sweep", 60), 0) << "a numerical failure is a result\n" << p->err();
  const auto rows = read_rows(study() / "results.csv");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1][5], "ok");
  EXPECT_EQ(rows[1][7], "2") << "killed once, run again";
  EXPECT_EQ(rows[2][4], "5");
  EXPECT_EQ(rows[2][5], "numerical_failure");
  EXPECT_TRUE(contains(rows[2][11], "mjWARN_BADQACC")) << rows[2][11];
  EXPECT_EQ(rows[3][5], "ok") << "the point after a failure runs";
}

}  // namespace
}  // namespace cosim::test
