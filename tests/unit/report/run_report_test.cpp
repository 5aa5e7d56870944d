// cosim-report's reading of a run folder, cross-checked against the dynamics' own figures:
// the folder is written by the real RunRecord, the delays by the real ProbeComparator, and
// the report must find the same order statistics from the CSVs alone.
#include "cosim/report/run_report.hpp"

#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "cosim/dynamics/session/probe_comparator.hpp"
#include "cosim/dynamics/session/run_record.hpp"
#include "cosim/run/run_summary.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::report {
namespace {

namespace fs = std::filesystem;

class RunReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = platform::make_private_temp_dir("cosim-report-");
    folder_ = run::create_run_folder(root_ / "run");
  }
  void TearDown() override { fs::remove_all(root_); }

  /// A run of 40 frames with 2 probes: a report every 4th frame, delayed by 1, 2, 3, 0, ... frames, the
  /// virtual probes off by seq * 1e-6 m; the pose deviates from its reference by 0.5 m at
  /// t = 1 s (in the transient the report leaves out) and by 0.002 m at t = 7 s.
  /// Lockstep instead: every frame reported before the next, the virtual probes exactly the
  /// dynamic ones, the pose exactly its reference (every difference plotted is 0).
  void write_run(bool lockstep = false, const std::vector<std::string>& probes = {"M/p1", "M/p2"}) {
    const std::vector<std::string> joints{"M/x_m", "M/y_m", "M/phi_rad"};
    const std::vector<std::string> outputs{"x_ref_m", "y_ref_m", "phi_ref_rad"};
    dynamics::session::RunRecord record(folder_, joints, probes, outputs);
    for (int n = 0; n <= 20; ++n) {
      const double t = 0.5 * n;
      const double x = t + (lockstep ? 0.0 : t == 1.0 ? 0.5 : t == 7.0 ? 0.002 : 0.0);
      const double q[] = {x, 2 * t, 0.1 * t};
      const double ref[] = {t, 2 * t, 0.1 * t};
      const Eigen::Vector3d p[] = {{x, 0, 0}, {0, x, 0}};
      record.write_state(t, q, p, ref);
    }
    dynamics::session::ProbeComparator comparator(2, 40);
    std::uint64_t reported = 0;
    for (std::uint64_t k = 1; k <= 40; ++k) {
      const double t = 0.05 * static_cast<double>(k);
      const Eigen::Vector3d p[] = {{t, 0, 0}, {0, t, 0}};
      comparator.record_sent(k, t, static_cast<std::int64_t>(k) * 1'000'000, p);
      // Every 4th frame brings the report of a frame 0..3 frames older (cycling); in lockstep
      // every frame its own.
      const std::uint64_t due = lockstep ? k : k - (k / 4) % 4;
      if ((lockstep || k % 4 == 0) && due > reported) {
        v1::ProbeReport report;
        report.set_frame_seq(due);
        const double td = 0.05 * static_cast<double>(due);
        for (const double c : {td + (lockstep ? 0.0 : 1e-6 * due), 0.0, 0.0, 0.0, td, 0.0}) report.add_positions_m(c);
        record.write_comparison(comparator.compare(report, static_cast<std::int64_t>(k) * 1'000'000 + 250'000));
        reported = due;
      }
    }
    record.flush();
    expected_ = comparator.summary();

    run::RunSummary summary;
    summary.run_id = "test-run";
    summary.status = "ok";
    summary.backend = "kinematic";
    summary.mode = lockstep ? "lockstep" : "free";
    summary.scene = "scenes/m";
    summary.fps = 20.0;
    summary.joint_names = {"M/x", "M/y", "M/phi"};
    summary.probe_names = probes;
    summary.totals.frames_sent = 40;
    write_summary(summary);
  }

  void write_summary(const run::RunSummary& summary) {
    std::ofstream(folder_.run_json(), std::ios::binary) << run::to_json(summary);
  }

  fs::path root_;
  run::RunFolder folder_;
  dynamics::session::ComparisonSummary expected_;
};

TEST_F(RunReportTest, FindsTheDynamicsFiguresFromTheFilesAlone) {
  write_run();
  const RunFacts f = read_run(folder_.dir);
  EXPECT_EQ(f.run_id, "test-run");
  EXPECT_EQ(f.frames_sent, 40u);
  EXPECT_EQ(f.reports, expected_.reports);
  ASSERT_EQ(f.probes.size(), 2u);
  // Same numbers through a CSV round trip (17 significant digits: exact for doubles).
  for (const auto& [report, dynamics] : {std::pair{f.delay_frames, expected_.delay_frames},
                                         std::pair{f.rtt_us, expected_.rtt_us},
                                         std::pair{f.diff_same_time_m, expected_.diff_same_time_m},
                                         std::pair{f.diff_at_arrival_m, expected_.diff_at_arrival_m}}) {
    EXPECT_EQ(report.count, dynamics.count);
    EXPECT_DOUBLE_EQ(report.p50, dynamics.p50);
    EXPECT_DOUBLE_EQ(report.p99, dynamics.p99);
    EXPECT_DOUBLE_EQ(report.max, dynamics.max);
  }
  EXPECT_EQ(f.delay_frames.max, 3.0);
  EXPECT_DOUBLE_EQ(f.rtt_us.max, 3250.0);  // reported 3 frames (3 ms) late, plus 250 us
}

TEST_F(RunReportTest, DeviationFromTheReferenceLeavesOutTheTransient) {
  write_run();
  const RunFacts f = read_run(folder_.dir);
  ASSERT_TRUE(f.has_reference);
  EXPECT_EQ(f.reference_rows, 11u);  // t = 5.0 .. 10.0 s every 0.5 s
  EXPECT_NEAR(f.max_dev_x_m, 0.002, 1e-12);  // not the 0.5 m at t = 1 s
  EXPECT_EQ(f.max_dev_y_m, 0.0);
}

TEST_F(RunReportTest, MetricsAsJsonAreTheFactsWithTheirUnitsInTheKeys) {
  write_run();
  const RunFacts f = read_run(folder_.dir);
  boost::property_tree::ptree json;
  std::istringstream text(metrics_json(f));
  boost::property_tree::read_json(text, json);
  EXPECT_EQ(json.get<int>("schema_version"), kMetricsSchemaVersion);
  EXPECT_EQ(json.get<std::string>("run_id"), "test-run");
  EXPECT_EQ(json.get<std::uint64_t>("frames_sent"), 40u);
  EXPECT_EQ(json.get<std::uint64_t>("reports"), f.reports);
  EXPECT_EQ(json.get<double>("rtt_us.max"), f.rtt_us.max);  // shortest round trip: exact
  EXPECT_EQ(json.get<double>("delay_frames.p99"), f.delay_frames.p99);
  EXPECT_EQ(json.get<std::uint64_t>("deviation.rows"), 11u);
  EXPECT_EQ(json.get<double>("deviation.max_x_m"), f.max_dev_x_m);
  EXPECT_EQ(json.get<double>("deviation.after_s"), 5.0);
  // A run without a reference: the deviation is null, not 0.
  RunFacts none = f;
  none.has_reference = false;
  EXPECT_NE(metrics_json(none).find("\"max_x_m\": null"), std::string::npos) << metrics_json(none);
}

TEST_F(RunReportTest, WritesThePlotsAndTheReport) {
  write_run();
  if (!COSIM_TEST_HAS_GNUPLOT) {
    // The Windows build under Wine has no gnuplot.exe: the report says what is missing.
    try {
      (void)write_report(folder_.dir, read_run(folder_.dir), 640, 480);
      FAIL() << "plotted without gnuplot";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("the gnuplot program is not installed"), std::string::npos) << e.what();
    }
    return;
  }
  const auto written = write_report(folder_.dir, read_run(folder_.dir), 640, 480);
  ASSERT_FALSE(written.pngs.empty());
  EXPECT_TRUE(written.gnuplot_messages.empty()) << written.gnuplot_messages.front();
  for (const auto& png : written.pngs) {
    ASSERT_TRUE(fs::exists(png)) << png;
    std::ifstream in(png, std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << png;
  }
}

/// The text of a file.
std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// What gnuplot writes on stderr for a script in dir (its exit code must be 0).
std::string gnuplot_stderr(const fs::path& dir, const std::string& script) {
  const fs::path err = dir / "check.err";
  platform::Process gnuplot("gnuplot", {script}, {.working_dir = platform::utf8(dir), .stderr_file = platform::utf8(err)});
  EXPECT_EQ(gnuplot.wait(), 0) << read_text(err);
  return read_text(err);
}

TEST_F(RunReportTest, ALockstepRunIsDrawnWithoutFallbackRangesOrWarnings) {
  write_run(/*lockstep=*/true);
  if (!COSIM_TEST_HAS_GNUPLOT) GTEST_SKIP() << "no gnuplot (Windows under Wine): WritesThePlotsAndTheReport checks the error";
  const RunFacts f = read_run(folder_.dir);
  ASSERT_EQ(f.diff_at_arrival_m.max, 0.0) << "the fixture is not flat";
  // cosim-report's default size: each note fits on one line.
  const auto written = write_report(folder_.dir, f, 1000, 600);
  for (const auto& said : written.gnuplot_messages) ADD_FAILURE() << "gnuplot said: " << said;
  const fs::path plots = folder_.dir / "plots";
  for (const auto& entry : fs::directory_iterator(plots)) {
    EXPECT_NE(entry.path().extension(), ".err") << entry.path() << ": " << read_text(entry.path());
  }
  // Each flat panel has its own range and says why it is flat.
  const std::string vmd = read_text(plots / "virtual_minus_dynamic.gp");
  EXPECT_NE(vmd.find("set yrange [-0.001:0.001]"), std::string::npos) << vmd;
  EXPECT_NE(vmd.find("\"all zero: the visual side puts the probe exactly where the dynamics does\""), std::string::npos) << vmd;
  EXPECT_NE(vmd.find("\"all zero (lockstep: the visual side shows every frame)\""), std::string::npos) << vmd;
  EXPECT_NE(read_text(plots / "deviation.gp").find("all zero: the pose follows its reference exactly"), std::string::npos);
  EXPECT_NE(read_text(plots / "path.gp").find("set yrange ["), std::string::npos);
  // Every axis says its unit.
  for (const auto& png : written.pngs) {
    std::istringstream script(read_text(fs::path(png).replace_extension(".gp")));
    for (std::string line; std::getline(script, line);) {
      if (line.starts_with("set xlabel") || line.starts_with("set ylabel")) {
        EXPECT_TRUE(line.find('[') != std::string::npos && line.find(']') != std::string::npos) << png << ": " << line;
      }
    }
  }
  // The cross-check: without the ranges chosen for it, gnuplot itself finds the data flat
  // and says so on stderr (what write_report would have passed on).
  std::string autoscaled;
  {
    std::istringstream script(vmd);
    for (std::string line; std::getline(script, line);) {
      if (!line.starts_with("set yrange")) autoscaled += line + "\n";
    }
  }
  std::ofstream(plots / "autoscaled.gp") << autoscaled;
  const std::string said = gnuplot_stderr(plots, "autoscaled.gp");
  EXPECT_NE(said.find("empty y range [0:0]"), std::string::npos) << said;
}

TEST_F(RunReportTest, AFreeRunIsDrawnWithoutWarningsAndItsHistogramsSayWhatTheyShow) {
  write_run();
  if (!COSIM_TEST_HAS_GNUPLOT) GTEST_SKIP() << "no gnuplot (Windows under Wine): WritesThePlotsAndTheReport checks the error";
  const auto written = write_report(folder_.dir, read_run(folder_.dir), 640, 480);
  for (const auto& said : written.gnuplot_messages) ADD_FAILURE() << "gnuplot said: " << said;
  // Delays of 0..3 frames and round trips of 250..3250 µs: within twice the p99, all shown.
  const std::string histogram = read_text(folder_.dir / "plots" / "delay_histogram.gp");
  EXPECT_NE(histogram.find("set title \"all shown, max 3 frames\""), std::string::npos) << histogram;
  EXPECT_NE(histogram.find("set title \"all shown, max 3.25 ms\""), std::string::npos) << histogram;
  EXPECT_NE(histogram.find("set xrange [-0.5:3.5]"), std::string::npos) << histogram;
}

TEST_F(RunReportTest, ComparesTheDeviationWithASecondRun) {
  // The same run under another folder name: both curves in the deviation plot, each labelled
  // by its folder, and the second run's figures in report.md.
  write_run();
  const fs::path other = root_ / "seed 'literal'";
  fs::copy(folder_.dir, other, fs::copy_options::recursive);
  if (!COSIM_TEST_HAS_GNUPLOT) {
    EXPECT_THROW((void)write_report(folder_.dir, read_run(folder_.dir), 640, 480, other), std::runtime_error);
    return;
  }
  (void)write_report(folder_.dir, read_run(folder_.dir), 640, 480, other);
  std::ifstream gp(folder_.dir / "plots" / "deviation.gp");
  const std::string script((std::istreambuf_iterator<char>(gp)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("title 'run'"), std::string::npos) << script;
  EXPECT_NE(script.find("title 'seed ''literal'''"), std::string::npos) << "quotes doubled for gnuplot: " << script;
  std::ifstream md_in(folder_.dir / "report.md");
  const std::string md((std::istreambuf_iterator<char>(md_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("Compared with run `seed 'literal'` (backend `kinematic`): max |X − X_ref| = 0.002 m"),
            std::string::npos)
      << md;
}

TEST_F(RunReportTest, SpeedErrorsPerPhaseOfAManoeuvre) {
  // A settle, an X move with its stop, a turn: errors of 0.01 m/s in X while moving and 0.02 in
  // the stop after it, 0.05 rad/s in the turn.
  const std::vector<std::string> joints{"M/x_m"};
  const std::vector<std::string> outputs{"vx_m_per_s", "vx_ref_m_per_s", "vy_m_per_s", "vy_ref_m_per_s",
                                         "omega_rad_per_s", "omega_ref_rad_per_s"};
  {
    dynamics::session::RunRecord record(folder_, joints, {}, outputs);
    //                     t    vx_ref  vx error   omega_ref  omega error
    const double rows[][5] = {{0.0, 0, 0, 0, 0},   {0.1, 1, 0.01, 0, 0}, {0.2, 1, -0.01, 0, 0}, {0.3, 0, 0.02, 0, 0},
                              {0.4, 0, 0, 1, 0.05}, {0.5, 1e-9, 0, 1, -0.05}, {0.6, 0, 0, 0, 0}};
    for (const auto& r : rows) {
      const double q[] = {0.0};
      const double o[] = {r[1] + r[2], r[1], 0.0, 0.0, r[3] + r[4], r[3]};
      record.write_state(r[0], q, {}, o);
    }
    record.flush();
  }
  run::RunSummary summary;
  summary.run_id = "phases";
  summary.status = "ok";
  summary.backend = "mecanum4";
  summary.mode = "lockstep";
  summary.joint_names = {"M/x"};
  write_summary(summary);
  const RunFacts f = read_run(folder_.dir);
  ASSERT_EQ(f.speed_phases.size(), 2u);
  EXPECT_EQ(f.speed_phases[0].name, "X");
  EXPECT_EQ(f.speed_phases[0].from_s, 0.1);
  EXPECT_EQ(f.speed_phases[0].to_s, 0.3);  // the stop after the move belongs to it
  EXPECT_NEAR(f.speed_phases[0].max_abs[0], 0.02, 1e-15);
  EXPECT_NEAR(f.speed_phases[0].rms[0], std::sqrt((1e-4 + 1e-4 + 4e-4) / 3), 1e-15);
  EXPECT_EQ(f.speed_phases[1].name, "turn");  // named where it starts: a stray X reference at 0.5 s does not split it
  EXPECT_NEAR(f.speed_phases[1].max_abs[2], 0.05, 1e-15);
  EXPECT_EQ(f.speed_phases[1].rows, 3u);
}

TEST_F(RunReportTest, ACompareRunWithNothingToCompareIsRefused) {
  write_run();
  const fs::path other = root_ / "short";
  fs::copy(folder_.dir, other, fs::copy_options::recursive);
  std::ofstream(other / "dynamics.csv") << "t_s,M/x_m,M/y_m,M/phi_rad\n0,0,0,0\n";
  try {
    (void)write_report(folder_.dir, read_run(folder_.dir), 640, 480, other);
    FAIL() << "compared with a run that has no reference";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("neither a deviation from a reference after the transient in both runs"), std::string::npos) << e.what();
  }
}

// A run folder is input from elsewhere (shared, downloaded): its names reach the gnuplot
// scripts and report.md as text, never as commands or lines of their own.
TEST_F(RunReportTest, NamesFromTheRunFolderRunNoCommandAndAddNoLine) {
  const fs::path marker = root_ / "pwned";
  const std::string hostile = "M/p1';system 'touch " + platform::utf8(marker) + "';#";
  write_run(false, {hostile, "M/p2"});
  run::RunSummary summary = run::read_run_summary(folder_.run_json());
  summary.run_id = "r\n# a heading of the run folder's choosing";
  write_summary(summary);
  if (!COSIM_TEST_HAS_GNUPLOT) return;  // what gnuplot would run is checked below where it runs
  (void)write_report(folder_.dir, read_run(folder_.dir), 640, 480);
  EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command named in run.json";
  std::ifstream path_gp(folder_.dir / "plots" / "path.gp");
  const std::string script((std::istreambuf_iterator<char>(path_gp)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("M/p1'';system ''touch"), std::string::npos) << script;  // quotes doubled: one string
  std::ifstream md(folder_.dir / "report.md");
  std::string line;
  int headings = 0;
  while (std::getline(md, line)) headings += line.starts_with("# ");
  EXPECT_EQ(headings, 1) << "a line end in run_id started a line of report.md";
}

#ifndef _WIN32  // symbolic links need privileges on Windows
// Links in a run folder pointing elsewhere are refused, not written through.
TEST_F(RunReportTest, LinksInTheRunFolderAreNotWrittenThrough) {
  write_run();
  if (!COSIM_TEST_HAS_GNUPLOT) return;
  const fs::path elsewhere = root_ / "elsewhere";
  fs::create_directories(elsewhere);
  std::ofstream(elsewhere / "precious.md") << "keep\n";
  const auto refused = [&](const std::string& what) {
    try {
      (void)write_report(folder_.dir, read_run(folder_.dir), 640, 480);
      ADD_FAILURE() << "wrote through " << what;
    } catch (const util::BadInputError& e) {
      EXPECT_NE(std::string(e.what()).find(what + ": a symbolic link"), std::string::npos) << e.what();
    }
  };
  fs::create_directory_symlink(elsewhere, folder_.dir / "plots");
  refused("plots");
  EXPECT_FALSE(fs::exists(elsewhere / "path.gp"));
  fs::remove(folder_.dir / "plots");
  fs::create_symlink(elsewhere / "precious.md", folder_.dir / "report.md");
  refused("report.md");
  fs::remove(folder_.dir / "report.md");
  fs::create_directories(folder_.dir / "plots");
  fs::create_symlink(elsewhere / "precious.md", folder_.dir / "plots" / "path.png");
  refused("path.png");
  std::ifstream precious(elsewhere / "precious.md");
  std::string kept;
  std::getline(precious, kept);
  EXPECT_EQ(kept, "keep");
}
#endif

TEST_F(RunReportTest, ABrokenRunJsonIsNamedWithItsLine) {
  write_run();
  std::ofstream(folder_.run_json()) << "{\n  \"run_id\": \"x\",\n  oops\n}\n";
  try {
    (void)read_run(folder_.dir);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(folder_.run_json().string() + ": parse error at line 3"), std::string::npos)
        << e.what();
  }
}

TEST_F(RunReportTest, AKilledRunIsReportedWithItsTornRowLeftOut) {
  write_run();
  // What SIGKILL can leave: run.json of the start, a table cut mid-row.
  std::string json;
  {
    std::ifstream in(folder_.run_json());
    json.assign(std::istreambuf_iterator<char>(in), {});
  }
  json.replace(json.find("\"ok\""), 4, "\"running\"");
  std::ofstream(folder_.run_json()) << json;
  std::ofstream(folder_.dynamics_csv(), std::ios::app) << "11.5,23,1.1";
  const RunFacts f = read_run(folder_.dir);
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_NE(f.notes[0].find("running"), std::string::npos) << f.notes[0];
  EXPECT_NE(f.notes[1].find("dynamics.csv: its last line (23)"), std::string::npos) << f.notes[1];
  EXPECT_EQ(f.reference_rows, 11u) << "the torn row is not counted";
}

TEST_F(RunReportTest, AMissingTableIsNamed) {
  write_run();
  fs::remove(folder_.probes_csv());
  try {
    (void)read_run(folder_.dir);
    FAIL() << "no exception";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("probes.csv"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cosim::report
