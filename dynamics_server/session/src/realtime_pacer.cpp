#include "cosim/dynamics/session/realtime_pacer.hpp"

#include <cmath>

namespace cosim::dynamics::session {

void RealtimePacer::anchor(double t_s, std::int64_t sent_ns) {
  anchored_ = true;
  anchor_t_s_ = t_s;
  anchor_ns_ = sent_ns;
}

std::int64_t RealtimePacer::due_ns(double t_s) const {
  // Rounded up: a frame is never due before its exact time.
  return anchor_ns_ + static_cast<std::int64_t>(std::ceil((t_s - anchor_t_s_) / rate_ * 1e9));
}

}  // namespace cosim::dynamics::session
