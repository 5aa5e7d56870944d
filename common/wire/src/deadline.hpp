#pragma once
// Deadlines and durations shared by the channel implementations (private to cosim::wire).

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

namespace cosim::wire::detail {

using Clock = std::chrono::steady_clock;

/// Blocking waits are sliced so stop_requested() is seen at least this often.
inline constexpr std::chrono::milliseconds kStopPollSlice{100};

/// now + timeout; timeout <= 0 is "now", a year or more is "never" (no overflow).
inline Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  const auto now = Clock::now();
  if (timeout <= std::chrono::milliseconds::zero()) return now;
  if (timeout >= std::chrono::hours(24 * 365)) return Clock::time_point::max();
  return now + timeout;
}

/// The end of the next wait slice: the deadline, or kStopPollSlice from now if sooner.
inline Clock::time_point slice_end(Clock::time_point deadline) {
  const auto now = Clock::now();
  return deadline - now > kStopPollSlice ? now + kStopPollSlice : deadline;
}

/// Polls for the peer during set-up: 1 ms first (fast pickup), up to 10 ms (low CPU).
class Backoff {
 public:
  void sleep_until_at_most(Clock::time_point deadline) {
    const auto now = Clock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(next_, deadline - now));
    next_ = std::min(next_ * 2, std::chrono::milliseconds(10));
  }

 private:
  std::chrono::milliseconds next_{1};
};

/// "10 s", "0.2 s", "1.25 s": durations in messages read like the options users typed.
inline std::string seconds_text(std::chrono::milliseconds t) {
  std::string s = std::to_string(t.count() / 1000);
  if (const auto frac = t.count() % 1000; frac != 0) {
    std::string digits = std::to_string(1000 + frac).substr(1);
    while (digits.back() == '0') digits.pop_back();
    s += "." + digits;
  }
  return s + " s";
}

}  // namespace cosim::wire::detail
