#pragma once
/// \file
/// The realtime schedule: frame k is due when wall time since the first frame equals its sim
/// time since the first frame divided by the rate.

#include <cstdint>

namespace cosim::dynamics::session {

/// Due times of frames on the steady clock (util::steady_ns(), the clock of Frame.sent_ns),
/// anchored at the first frame's own sent_ns, so "sent_k - sent_1 >= (t_k - t_1) / rate"
/// holds exactly as a receiver can check it from the frames alone.
class RealtimePacer {
 public:
  /// rate: sim seconds per wall second (> 0).
  explicit RealtimePacer(double rate) : rate_(rate) {}

  /// False until anchor(): the first frame goes out at once.
  bool anchored() const { return anchored_; }
  /// Anchors the schedule: the frame at sim time t_s was sent at sent_ns.
  void anchor(double t_s, std::int64_t sent_ns);
  /// Steady-clock ns at which the frame at sim time t_s is due (anchored() must be true).
  std::int64_t due_ns(double t_s) const;

  /// A frame more than this late counts as an overrun.
  static constexpr std::int64_t kOverrunNs = 1'000'000;

 private:
  double rate_;
  bool anchored_ = false;
  double anchor_t_s_ = 0;
  std::int64_t anchor_ns_ = 0;
};

}  // namespace cosim::dynamics::session
