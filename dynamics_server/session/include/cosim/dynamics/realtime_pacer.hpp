#pragma once
/// \file
/// The realtime schedule: frame k is due when wall time since the first frame equals its sim
/// time since the first frame divided by the rate.

#include <cstdint>

namespace cosim::dynamics {

/// Due times of frames on the steady clock (util::steady_ns(), the clock of Frame.sent_ns),
/// anchored at the first frame, so "no frame before its due time" holds exactly as a receiver
/// can check it.
class RealtimePacer {
 public:
  /// rate: sim seconds per wall second (> 0).
  explicit RealtimePacer(double rate) : rate_(rate) {}

  /// Steady-clock ns at which the frame at sim time t_s is due. The first call anchors the
  /// schedule at now_ns and returns it.
  std::int64_t due_ns(double t_s, std::int64_t now_ns);

  /// A frame more than this late counts as an overrun.
  static constexpr std::int64_t kOverrunNs = 1'000'000;

 private:
  double rate_;
  bool anchored_ = false;
  double anchor_t_s_ = 0;
  std::int64_t anchor_ns_ = 0;
};

}  // namespace cosim::dynamics
