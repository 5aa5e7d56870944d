// The probe comparison on its own: delays counted from frames actually sent, a window that
// grows with the frames in flight, reports out of order refused.
#include "cosim/dynamics/session/probe_comparator.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "cosim/util/errors.hpp"

namespace cosim::dynamics::session {
namespace {

std::vector<Eigen::Vector3d> probes_at(double t_s, std::size_t count) {
  std::vector<Eigen::Vector3d> p;
  for (std::size_t i = 0; i < count; ++i) p.emplace_back(t_s, static_cast<double>(i), -t_s);
  return p;
}

v1::ProbeReport report_of(std::uint64_t seq, const std::vector<Eigen::Vector3d>& p_WP) {
  v1::ProbeReport report;
  report.set_frame_seq(seq);
  for (const auto& p : p_WP) {
    for (int a = 0; a < 3; ++a) report.add_positions_m(p[a]);
  }
  return report;
}

TEST(ProbeComparator, ReportOfTheLastFrameSentHasNoDelayAndNoDifference) {
  ProbeComparator c(3, 10);
  c.record_sent(1, 0.05, 1'000, probes_at(0.05, 3));
  const Comparison& r = c.compare(report_of(1, probes_at(0.05, 3)), 251'000);
  EXPECT_EQ(r.frame_seq, 1u);
  EXPECT_EQ(r.delay_frames, 0.0);
  EXPECT_EQ(r.delay_sim_s, 0.0);
  EXPECT_DOUBLE_EQ(r.rtt_us, 250.0);  // (251000 - 1000) ns
  EXPECT_EQ(r.worst_same_time_m, 0.0);
  EXPECT_EQ(r.worst_at_arrival_m, 0.0);
  EXPECT_EQ(c.feedback().last_report_seq, 1u);
  EXPECT_EQ(c.feedback().last_rtt_us, 250.0);
}

TEST(ProbeComparator, WindowGrowsWithFramesInFlightAndKeepsEveryFrame) {
  // 5000 frames before the first report: far beyond the initial window, every frame still
  // comparable; the delay is counted from the last frame sent.
  constexpr std::size_t kProbes = 6;
  ProbeComparator c(kProbes, 5000);
  const std::size_t initial = c.window_capacity();
  for (std::uint64_t k = 1; k <= 5000; ++k) c.record_sent(k, k * 0.01, static_cast<std::int64_t>(k) * 1000, probes_at(k * 0.01, kProbes));
  EXPECT_GT(c.window_capacity(), initial);
  for (std::uint64_t j : {1u, 2u, 777u, 4999u, 5000u}) {
    const Comparison& r = c.compare(report_of(j, probes_at(j * 0.01, kProbes)), 6'000'000);
    EXPECT_EQ(r.delay_frames, static_cast<double>(5000 - j)) << j;
    EXPECT_NEAR(r.delay_sim_s, (5000.0 - j) * 0.01, 1e-9) << j;
    EXPECT_EQ(r.worst_same_time_m, 0.0) << "frame " << j << " kept its own probes through the growth";
    EXPECT_NEAR(r.worst_at_arrival_m, std::sqrt(2.0) * (5000.0 - j) * 0.01, 1e-9) << j;
    EXPECT_EQ(r.diff_same_time_m.size(), kProbes);
  }
  EXPECT_EQ(c.reports(), 5u);
  EXPECT_EQ(c.summary().delay_frames.max, 4999.0);
}

TEST(ProbeComparator, RefusesReportsOutOfOrderOrOfTheWrongSize) {
  ProbeComparator c(2, 10);
  c.record_sent(1, 0.1, 0, probes_at(0.1, 2));
  c.record_sent(2, 0.2, 0, probes_at(0.2, 2));
  EXPECT_THROW(c.compare(report_of(3, probes_at(0.3, 2)), 0), util::PeerError);  // not sent
  EXPECT_THROW(c.compare(report_of(0, probes_at(0.0, 2)), 0), util::PeerError);
  EXPECT_THROW(c.compare(report_of(2, probes_at(0.2, 3)), 0), util::PeerError);  // 9 coordinates
  c.compare(report_of(2, probes_at(0.2, 2)), 0);
  EXPECT_THROW(c.compare(report_of(1, probes_at(0.1, 2)), 0), util::PeerError);  // after 2
  EXPECT_THROW(c.compare(report_of(2, probes_at(0.2, 2)), 0), util::PeerError);  // twice
  EXPECT_EQ(c.reports(), 1u);
}

TEST(ProbeComparator, RefusesNonFinitePositionsAndKeepsHugeOnesVisible) {
  for (const double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    ProbeComparator c(2, 10);
    c.record_sent(1, 0.1, 0, probes_at(0.1, 2));
    auto report = report_of(1, probes_at(0.1, 2));
    report.set_positions_m(4, bad);
    EXPECT_THROW(c.compare(report, 0), util::PeerError) << bad;
    EXPECT_EQ(c.reports(), 0u);
  }
  ProbeComparator c(1, 10);
  c.record_sent(1, 0.1, 0, probes_at(0.1, 1));
  auto report = report_of(1, probes_at(0.1, 1));
  report.set_positions_m(0, 1e308);
  report.set_positions_m(1, 1e308);
  const Comparison& r = c.compare(report, 0);
  EXPECT_TRUE(std::isfinite(r.worst_same_time_m));  // |(1e308, 1e308, .)| without overflow
  EXPECT_GT(r.worst_same_time_m, 1e308);
  EXPECT_EQ(c.summary().diff_same_time_m.max, r.worst_same_time_m) << "the summary shows it";
}

TEST(ProbeComparator, FramesAreRecordedInSequence) {
  ProbeComparator c(1, 10);
  EXPECT_THROW(c.record_sent(2, 0.1, 0, probes_at(0.1, 1)), std::logic_error);
  EXPECT_THROW(c.record_sent(1, 0.1, 0, probes_at(0.1, 2)), std::logic_error);
}

}  // namespace
}  // namespace cosim::dynamics::session
