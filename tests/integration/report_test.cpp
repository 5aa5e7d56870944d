// cosim-report on a real run folder: the plots exist with the asked size, and the
// numbers in report.md are the ones this test computes from the CSVs itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "cosim/run/visual_summary.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

/// Width and height from a PNG's IHDR chunk.
std::pair<int, int> png_size(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  EXPECT_GE(bytes.size(), 24u) << path;
  EXPECT_EQ(bytes.substr(1, 3), "PNG") << path;
  const auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(bytes[at]) << 24) | (static_cast<unsigned char>(bytes[at + 1]) << 16) |
           (static_cast<unsigned char>(bytes[at + 2]) << 8) | static_cast<unsigned char>(bytes[at + 3]);
  };
  return {be32(16), be32(20)};
}

/// True if text says "warning" in any case (gnuplot writes "Warning: empty y range ...").
bool says_warning(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("warning") != std::string::npos;
}

/// What is left of gnuplot's stderr in a run's plots folder (cosim-report keeps it when gnuplot
/// said something).
std::vector<std::filesystem::path> gnuplot_err_files(const std::filesystem::path& run) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(run / "plots")) {
    if (entry.path().string().ends_with(".gnuplot.err")) files.push_back(entry.path());
  }
  return files;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (rank - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

TEST_F(LoopTest, ReportOfARealRunMatchesItsCsvs) {
  auto dynamics = start_dynamics({"--duration", "10", "--fps", "25", "--mode", "free"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  Process report(kBinDir / "cosim-report", {run_dir().string(), "--width", "800", "--height", "500"},
                 tmp_.path() / "report");
  ASSERT_EQ(finish(report, "cosim-report", 60), 0) << report.err();
  EXPECT_FALSE(says_warning(report.err())) << report.err();
  EXPECT_TRUE(gnuplot_err_files(run_dir()).empty()) << gnuplot_err_files(run_dir()).front();

  for (const char* name : {"path", "virtual_minus_dynamic", "deviation", "delay_histogram"}) {
    const auto png = run_dir() / "plots" / (std::string(name) + ".png");
    ASSERT_TRUE(std::filesystem::exists(png)) << png;
    EXPECT_GT(std::filesystem::file_size(png), 5000u) << png;
    EXPECT_EQ(png_size(png), std::make_pair(800, 500)) << png;
  }

  // Every summary row of report.md against the CSV.
  const Csv probes = read_csv(run_dir() / "probes.csv");
  const std::string md = read_file(run_dir() / "report.md");
  for (const auto& [row, column] : std::vector<std::pair<std::string, std::string>>{
           {"delay_frames", "delay_frames"},
           {"delay_sim_s", "delay_sim_s"},
           {"rtt_us", "rtt_us"},
           {"diff_same_time_m", "Robotino/chassis_bottom/diff_same_time_m"},
           {"diff_at_arrival_m", "Robotino/chassis_bottom/diff_at_arrival_m"}}) {
    const std::regex pattern("\\| " + row + " \\| (\\d+) \\| ([^ |]+) \\| ([^ |]+) \\| ([^ |]+) \\|");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(md, m, pattern)) << row << " missing in report.md:\n" << md;
    const auto values = probes.values(column);
    EXPECT_EQ(std::stoul(m[1]), values.size()) << row;
    const double expected[] = {percentile(values, 0.5), percentile(values, 0.99),
                               *std::max_element(values.begin(), values.end())};
    for (int i = 0; i < 3; ++i) {
      const double got = std::stod(m[2 + i]);
      EXPECT_NEAR(got, expected[i], 1e-8 * std::max(1.0, std::abs(expected[i]))) << row << " column " << i;
    }
  }
  EXPECT_NE(md.find("| probe reports | " + std::to_string(probes.rows.size()) + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("![path](plots/path.png)"), std::string::npos);
}

TEST_F(LoopTest, ReportOfALockstepRunHasNoFallbackRangeAndNoGnuplotWarning) {
  // Lockstep with the recorder: the virtual probe is where the dynamic one is, at the frame's
  // time and at the report's arrival, so virtual minus dynamic is flat. gnuplot alone would
  // draw it on its fallback [-1:1] and warn on stderr; cosim-report passes gnuplot's stderr on.
  auto dynamics = start_dynamics({"--duration", "4", "--fps", "25", "--mode", "lockstep"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  Process report(kBinDir / "cosim-report", {run_dir().string()}, tmp_.path() / "report");
  ASSERT_EQ(finish(report, "cosim-report", 60), 0) << report.err();
  EXPECT_FALSE(says_warning(report.err())) << report.err();
  EXPECT_TRUE(gnuplot_err_files(run_dir()).empty()) << gnuplot_err_files(run_dir()).front();

  // Both panels of virtual minus dynamic: an explicit y range, never gnuplot's fallback, and
  // where this run's differences are all zero (from probes.csv), the note saying so.
  const Csv probes = read_csv(run_dir() / "probes.csv");
  const std::string script = read_file(run_dir() / "plots" / "virtual_minus_dynamic.gp");
  std::size_t ranges = 0;
  for (std::size_t at = script.find("set yrange ["); at != std::string::npos; at = script.find("set yrange [", at + 1)) {
    ++ranges;
    EXPECT_NE(script.compare(at, 17, "set yrange [-1:1]"), 0) << "gnuplot's fallback: " << script;
  }
  EXPECT_EQ(ranges, 2u) << script;
  const auto all_zero = [&](const std::string& prefix) {
    for (const char* axis : {"x", "y", "z"}) {
      const auto virtual_m = probes.values(std::string("Robotino/chassis_bottom/virtual_") + axis + "_m");
      const auto dynamic_m = probes.values("Robotino/chassis_bottom/" + prefix + axis + "_m");
      for (std::size_t r = 0; r < virtual_m.size(); ++r) {
        if (virtual_m[r] - dynamic_m[r] != 0.0) return false;
      }
    }
    return true;
  };
  if (all_zero("dynamic_at_arrival_")) {
    EXPECT_NE(script.find("all zero (lockstep: the visual side shows every frame)"), std::string::npos) << script;
  }
  if (all_zero("dynamic_")) {
    EXPECT_NE(script.find("all zero: the visual side puts the probe exactly where the dynamics does"), std::string::npos)
        << script;
  }
  // Every delay is 0 frames: one bar, and the histogram says it shows all.
  const std::string histogram = read_file(run_dir() / "plots" / "delay_histogram.gp");
  EXPECT_NE(histogram.find("set xrange [-0.5:0.5]"), std::string::npos) << histogram;
  EXPECT_NE(histogram.find("set title \"all shown, max 0 frames\""), std::string::npos) << histogram;
}

TEST_F(LoopTest, ReportJsonPrintsTheMetricsWritesNothingAndRefusesAMistypedRunJson) {
  auto dynamics = start_dynamics({"--duration", "2", "--fps", "25", "--mode", "lockstep"});
  auto recorder = start_recorder({});
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  // The recorder's own record of the session, as the launcher reads it.
  const run::VisualSummary recorded = run::read_visual_summary(run::visual_summary_file(run_dir(), "cosim-recorder"));
  EXPECT_EQ(recorded.frames_received, 50u);
  EXPECT_EQ(recorded.frames_shown + recorded.frames_skipped, 50u);

  Process report(kBinDir / "cosim-report", {"--json", run_dir().string()}, tmp_.path() / "report");
  ASSERT_EQ(finish(report, "cosim-report", 60), 0) << report.err();
  boost::property_tree::ptree metrics;
  std::istringstream text(report.out());
  boost::property_tree::read_json(text, metrics);
  const Csv probes = read_csv(run_dir() / "probes.csv");
  EXPECT_EQ(metrics.get<std::size_t>("reports"), probes.rows.size());
  EXPECT_EQ(metrics.get<std::size_t>("rtt_us.count"), probes.rows.size());
  EXPECT_EQ(metrics.get<double>("delay_frames.max"), 0.0);  // lockstep
  EXPECT_EQ(metrics.get<std::string>("status"), "ok");
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "report.md")) << "--json writes nothing";
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "plots"));

  // A run.json edited by hand: one line naming the file and the key, exit 2.
  std::string json = read_file(run_dir() / "run.json");
  json.replace(json.find("\"fps\": 25,"), 10, "\"fps\": \"25\",");
  std::ofstream(run_dir() / "run.json", std::ios::binary | std::ios::trunc) << json;
  Process refused(kBinDir / "cosim-report", {"--json", run_dir().string()}, tmp_.path() / "refused");
  EXPECT_EQ(finish(refused, "cosim-report", 10), util::kExitBadInput);
  EXPECT_EQ(refused.err(), "cosim-report: error: " + (run_dir() / "run.json").string() +
                               ": key 'fps': expected a number, found a string\n");
}

TEST_F(LoopTest, ReportOfAMissingRunFolderSaysWhat) {
  Process report(kBinDir / "cosim-report", {(tmp_.path() / "nope").string()}, tmp_.path() / "report");
  EXPECT_EQ(finish(report, "cosim-report", 10), util::kExitBadInput);
  EXPECT_NE(report.err().find("nope"), std::string::npos) << report.err();
}

// A run without a visual side (--channel none) has no delays or differences: the report
// says so instead of a table of nan in every cell.
TEST_F(LoopTest, ReportOfARunWithoutAVisualSideSaysSoInsteadOfNan) {
  Process dynamics(kBinDir / "cosim-dynamics",
                   {"--backend", "kinematic", "--channel", "none", "--duration", "1", "--out", run_dir().string(),
                    "--progress", "never"},
                   tmp_.path() / "dynamics");
  ASSERT_EQ(finish(dynamics, "cosim-dynamics", 30), 0) << dynamics.err();
  Process report(kBinDir / "cosim-report", {run_dir().string()}, tmp_.path() / "report");
  ASSERT_EQ(finish(report, "cosim-report", 60), 0) << report.err();
  const std::string md = read_file(run_dir() / "report.md");
  EXPECT_NE(md.find("No visual side in this run"), std::string::npos) << md;
  EXPECT_EQ(md.find("nan"), std::string::npos) << md;
}

TEST_F(LoopTest, ReportOfTwoOmniWheelRunsDrawsTheContactAndTheirDifference) {
  // Seed 004's bench with each contact tracker (standalone runs, no visual side), then
  // cosim-report on one with --compare the other: the contact plots, and the difference of
  // roller 1's vertical motion row by row, which this test recomputes from the two CSVs.
  const auto run = [&](const std::string& tracking, const std::string& output_step_s) {
    const auto dir = tmp_.path() / (tracking + "-" + output_step_s);
    Process dynamics(kBinDir / "cosim-dynamics",
                     {"--backend", "omniwheel", "--channel", "none", "--duration", "2", "--output-step", output_step_s, "--out",
                      dir.string(), "--progress", "never", "--param", "contact_tracking=" + tracking},
                     tmp_.path() / ("dynamics-" + tracking));
    EXPECT_EQ(finish(dynamics, "cosim-dynamics"), 0) << dynamics.err();
    return dir;
  };
  const auto explicit_run = run("explicit", "0.01"), implicit_run = run("implicit", "0.01");
  Process report(kBinDir / "cosim-report", {explicit_run.string(), "--compare", implicit_run.string()},
                 tmp_.path() / "report");
  ASSERT_EQ(finish(report, "cosim-report", 60), 0) << report.err();
  EXPECT_FALSE(says_warning(report.err())) << report.err();
  for (const char* name : {"contact_trail", "contact", "contact_forces", "difference"}) {
    const auto png = explicit_run / "plots" / (std::string(name) + ".png");
    ASSERT_TRUE(std::filesystem::exists(png)) << png;
    EXPECT_GT(std::filesystem::file_size(png), 5000u) << png;
  }
  const Csv a = read_csv(explicit_run / "dynamics.csv"), b = read_csv(implicit_run / "dynamics.csv");
  const Csv diff = read_csv(explicit_run / "plots" / "difference.csv");
  const std::string md = read_file(explicit_run / "report.md");
  ASSERT_EQ(diff.rows.size(), a.rows.size());
  for (const char* column : {"roller1_z_m", "roller1_vz_m_per_s", "roller1_az_m_per_s2"}) {
    const auto va = a.values(column), vb = b.values(column), vd = diff.values(std::string("abs_diff_") + column);
    double worst = 0;
    for (std::size_t r = 0; r < va.size(); ++r) {
      EXPECT_EQ(vd[r], std::abs(va[r] - vb[r])) << column << " row " << r;  // written with 17 digits
      worst = std::max(worst, vd[r]);
    }
    EXPECT_GT(worst, 0.0) << column << ": two integrations never agree to the last bit";
    char expected[64];
    std::snprintf(expected, sizeof expected, "%s %.3g", column, worst);
    EXPECT_NE(md.find(expected), std::string::npos) << expected << " in\n" << md;
  }

  // Runs with other output times are not compared row by row.
  const auto coarse = run("implicit", "0.02");
  Process refused(kBinDir / "cosim-report", {explicit_run.string(), "--compare", coarse.string()},
                  tmp_.path() / "refused");
  EXPECT_EQ(finish(refused, "cosim-report", 60), util::kExitBadInput);
  EXPECT_NE(refused.err().find("same output times"), std::string::npos) << refused.err();
}

}  // namespace
}  // namespace cosim::test
