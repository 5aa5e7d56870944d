#include "cosim/dynamics/realtime_pacer.hpp"

#include <cmath>

namespace cosim::dynamics {

std::int64_t RealtimePacer::due_ns(double t_s, std::int64_t now_ns) {
  if (!anchored_) {
    anchored_ = true;
    anchor_t_s_ = t_s;
    anchor_ns_ = now_ns;
    return now_ns;
  }
  // Rounded up: a frame is never due before its exact time.
  return anchor_ns_ + static_cast<std::int64_t>(std::ceil((t_s - anchor_t_s_) / rate_ * 1e9));
}

}  // namespace cosim::dynamics
