#pragma once
/// \file
/// Virtual against dynamic probes: what the dynamics remembers of each frame in flight, and
/// the delays and differences of every ProbeReport (docs/protocol.md §9).

#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "cosim/util/stats.hpp"
#include "cosim/v1/cosim.pb.h"

namespace cosim::dynamics::session {

/// One report compared with the frames it refers to; spans valid until the next compare().
struct Comparison {
  std::uint64_t frame_seq = 0;
  double t_frame_s = 0;     ///< sim time of the reported frame
  double t_consumed_s = 0;  ///< sim time of the last frame sent when the report arrived
  double delay_frames = 0;  ///< last frame sent - frame_seq
  double delay_sim_s = 0;   ///< t_consumed_s - t_frame_s
  double rtt_us = 0;        ///< report arrival - frame send, both on the dynamics' clock
  std::uint64_t frames_skipped = 0;
  std::span<const Eigen::Vector3d> virtual_p_WP;     ///< as reported [m]
  std::span<const Eigen::Vector3d> dynamic_p_WP;     ///< at t_frame_s [m]
  std::span<const Eigen::Vector3d> arrival_p_WP;     ///< at t_consumed_s [m]
  std::span<const double> diff_same_time_m;          ///< |virtual - dynamic| per probe
  std::span<const double> diff_at_arrival_m;         ///< |virtual - arrival| per probe
  double worst_same_time_m = 0;
  double worst_at_arrival_m = 0;
};

/// The values the next Frame carries about the last report (feedback for the visual side).
struct ReportFeedback {
  std::uint64_t last_report_seq = 0;
  std::uint32_t last_delay_frames = 0;
  double last_rtt_us = 0;
};

/// Summaries over every report of a run.
struct ComparisonSummary {
  std::uint64_t reports = 0;
  std::uint64_t frames_skipped = 0;  ///< largest count the visual side reported
  util::Summary delay_frames, delay_sim_s, rtt_us, diff_same_time_m, diff_at_arrival_m;
};

/// Remembers every frame sent and not yet reported (a window that grows with the frames in
/// flight, in flat storage) and compares reports with it. Frames are numbered 1, 2, ... and
/// recorded once actually sent, so "the last frame sent" is never a frame still waiting for
/// its due time.
class ProbeComparator {
 public:
  /// `expected_reports` preallocates the per-report statistics (a run's frame count).
  ProbeComparator(std::size_t probe_count, std::uint64_t expected_reports);

  /// Records frame `seq` (= last_sent() + 1), sent at sent_ns on the steady clock, with the
  /// dynamic probe positions at its sim time t_s. Allocates only when the window grows.
  void record_sent(std::uint64_t seq, double t_s, std::int64_t sent_ns, std::span<const Eigen::Vector3d> p_WP);

  /// Compares a report that arrived at received_ns. Throws util::PeerError for a report out
  /// of order (not after the last report, or for a frame not sent), with the wrong number
  /// of coordinates, or with a coordinate that is not finite.
  const Comparison& compare(const v1::ProbeReport& report, std::int64_t received_ns);

  std::uint64_t last_sent() const { return last_sent_; }
  std::uint64_t last_reported() const { return last_reported_; }
  std::uint64_t reports() const { return delay_frames_.size(); }
  ReportFeedback feedback() const;
  ComparisonSummary summary() const;
  /// Frames the window holds before it must grow (for tests).
  std::size_t window_capacity() const { return slots_; }

 private:
  struct SentFrame {
    std::uint64_t seq = 0;
    double t_s = 0;
    std::int64_t sent_ns = 0;
  };
  std::size_t slot(std::uint64_t seq) const { return static_cast<std::size_t>(seq & (slots_ - 1)); }
  std::span<Eigen::Vector3d> probes_of(std::size_t slot) {
    return {p_WP_.data() + slot * probe_count_, probe_count_};
  }
  void grow();

  std::size_t probe_count_;
  std::size_t slots_;                 // a power of two
  std::vector<SentFrame> sent_;       // slots_
  std::vector<Eigen::Vector3d> p_WP_;  // slots_ x probe_count_
  std::uint64_t last_sent_ = 0;
  std::uint64_t last_reported_ = 0;
  std::uint64_t frames_skipped_ = 0;

  Comparison result_;
  std::vector<Eigen::Vector3d> virtual_, dynamic_, arrival_;
  std::vector<double> same_, at_arrival_;
  std::vector<double> delay_frames_, delay_sim_s_, rtt_us_, worst_same_, worst_arrival_;
};

}  // namespace cosim::dynamics::session
