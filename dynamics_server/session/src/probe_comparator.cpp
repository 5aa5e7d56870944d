#include "cosim/dynamics/session/probe_comparator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cosim/util/errors.hpp"

namespace cosim::dynamics::session {

namespace {
/// Enough for the frames in flight of any run on one machine; grown on demand.
constexpr std::size_t kInitialSlots = 64;
}  // namespace

ProbeComparator::ProbeComparator(std::size_t probe_count, std::uint64_t expected_reports)
    : probe_count_(probe_count),
      slots_(kInitialSlots),
      sent_(kInitialSlots),
      p_WP_(kInitialSlots * probe_count, Eigen::Vector3d::Zero()),
      virtual_(probe_count, Eigen::Vector3d::Zero()),
      dynamic_(probe_count, Eigen::Vector3d::Zero()),
      arrival_(probe_count, Eigen::Vector3d::Zero()),
      same_(probe_count, 0.0),
      at_arrival_(probe_count, 0.0) {
  for (auto* v : {&delay_frames_, &delay_sim_s_, &rtt_us_, &worst_same_, &worst_arrival_}) v->reserve(expected_reports);
}

void ProbeComparator::grow() {
  // Re-lay the frames still in flight (last_reported_, last_sent_] into a window twice as big.
  const std::size_t old_slots = slots_;
  std::vector<SentFrame> sent(2 * old_slots);
  std::vector<Eigen::Vector3d> p_WP(2 * old_slots * probe_count_, Eigen::Vector3d::Zero());
  for (std::uint64_t seq = last_reported_ + 1; seq <= last_sent_; ++seq) {
    const std::size_t from = static_cast<std::size_t>(seq & (old_slots - 1));
    const std::size_t to = static_cast<std::size_t>(seq & (2 * old_slots - 1));
    sent[to] = sent_[from];
    std::copy_n(p_WP_.begin() + static_cast<std::ptrdiff_t>(from * probe_count_), probe_count_,
                p_WP.begin() + static_cast<std::ptrdiff_t>(to * probe_count_));
  }
  sent_ = std::move(sent);
  p_WP_ = std::move(p_WP);
  slots_ = 2 * old_slots;
}

void ProbeComparator::record_sent(std::uint64_t seq, double t_s, std::int64_t sent_ns,
                                  std::span<const Eigen::Vector3d> p_WP) {
  if (seq != last_sent_ + 1 || p_WP.size() != probe_count_) {
    throw std::logic_error("ProbeComparator::record_sent: frame " + std::to_string(seq) + " after " +
                           std::to_string(last_sent_) + " with " + std::to_string(p_WP.size()) + " probes");
  }
  // The window holds every frame not yet reported plus the newest one (the "now" of a report).
  if (seq - last_reported_ >= slots_) grow();
  const std::size_t s = slot(seq);
  sent_[s] = {seq, t_s, sent_ns};
  std::copy(p_WP.begin(), p_WP.end(), probes_of(s).begin());
  last_sent_ = seq;
}

const Comparison& ProbeComparator::compare(const v1::ProbeReport& report, std::int64_t received_ns) {
  const std::uint64_t j = report.frame_seq();
  if (j == 0 || j > last_sent_ || j <= last_reported_) {
    throw util::PeerError("ProbeReport for frame " + std::to_string(j) + " is out of order (last frame sent " +
                          std::to_string(last_sent_) + ", last report " + std::to_string(last_reported_) + ")");
  }
  if (static_cast<std::size_t>(report.positions_m_size()) != 3 * probe_count_) {
    throw util::PeerError("ProbeReport for frame " + std::to_string(j) + " has " +
                          std::to_string(report.positions_m_size()) + " coordinates, expected " +
                          std::to_string(3 * probe_count_) + " (3 per probe)");
  }
  for (int i = 0; i < report.positions_m_size(); ++i) {
    if (!std::isfinite(report.positions_m(i))) {
      // A non-finite position would vanish from (or poison) every statistic: refuse it.
      throw util::PeerError("ProbeReport for frame " + std::to_string(j) + ": coordinate " + std::to_string(i % 3) +
                            " of probe " + std::to_string(i / 3 + 1) + " is " + std::to_string(report.positions_m(i)));
    }
  }
  last_reported_ = j;
  frames_skipped_ = std::max<std::uint64_t>(frames_skipped_, report.frames_skipped());
  const SentFrame& then = sent_[slot(j)];
  const SentFrame& now = sent_[slot(last_sent_)];
  const auto then_p = probes_of(slot(j));
  const auto now_p = probes_of(slot(last_sent_));

  Comparison& c = result_;
  c.frame_seq = j;
  c.t_frame_s = then.t_s;
  c.t_consumed_s = now.t_s;
  c.delay_frames = static_cast<double>(last_sent_ - j);
  c.delay_sim_s = now.t_s - then.t_s;
  c.rtt_us = static_cast<double>(received_ns - then.sent_ns) / 1e3;
  c.frames_skipped = report.frames_skipped();
  c.worst_same_time_m = 0;
  c.worst_at_arrival_m = 0;
  for (std::size_t p = 0; p < probe_count_; ++p) {
    const int i = static_cast<int>(3 * p);
    virtual_[p] = {report.positions_m(i), report.positions_m(i + 1), report.positions_m(i + 2)};
    dynamic_[p] = then_p[p];
    arrival_[p] = now_p[p];
    // stableNorm: a huge (finite) position gives a huge difference, not an overflow to inf.
    same_[p] = (virtual_[p] - dynamic_[p]).stableNorm();
    at_arrival_[p] = (virtual_[p] - arrival_[p]).stableNorm();
    c.worst_same_time_m = std::max(c.worst_same_time_m, same_[p]);
    c.worst_at_arrival_m = std::max(c.worst_at_arrival_m, at_arrival_[p]);
  }
  c.virtual_p_WP = virtual_;
  c.dynamic_p_WP = dynamic_;
  c.arrival_p_WP = arrival_;
  c.diff_same_time_m = same_;
  c.diff_at_arrival_m = at_arrival_;
  delay_frames_.push_back(c.delay_frames);
  delay_sim_s_.push_back(c.delay_sim_s);
  rtt_us_.push_back(c.rtt_us);
  worst_same_.push_back(c.worst_same_time_m);
  worst_arrival_.push_back(c.worst_at_arrival_m);
  return c;
}

ReportFeedback ProbeComparator::feedback() const {
  ReportFeedback f;
  f.last_report_seq = last_reported_;
  if (!delay_frames_.empty()) {
    f.last_delay_frames = static_cast<std::uint32_t>(delay_frames_.back());
    f.last_rtt_us = rtt_us_.back();
  }
  return f;
}

ComparisonSummary ProbeComparator::summary() const {
  auto summarize_copy = [](std::vector<double> v) { return util::summarize(v); };
  ComparisonSummary s;
  s.reports = delay_frames_.size();
  s.frames_skipped = frames_skipped_;
  s.delay_frames = summarize_copy(delay_frames_);
  s.delay_sim_s = summarize_copy(delay_sim_s_);
  s.rtt_us = summarize_copy(rtt_us_);
  s.diff_same_time_m = summarize_copy(worst_same_);
  s.diff_at_arrival_m = summarize_copy(worst_arrival_);
  return s;
}

}  // namespace cosim::dynamics::session
