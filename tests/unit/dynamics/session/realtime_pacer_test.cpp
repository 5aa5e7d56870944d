#include "cosim/dynamics/session/realtime_pacer.hpp"

#include <gtest/gtest.h>

namespace cosim::dynamics::session {
namespace {

TEST(RealtimePacer, AnchorsAtTheFirstFramesSendTimeAndScalesByTheRate) {
  RealtimePacer pacer(2.0);  // two sim seconds per wall second
  EXPECT_FALSE(pacer.anchored());
  pacer.anchor(0.05, 1'000);
  EXPECT_TRUE(pacer.anchored());
  // 0.05 s sim later = 25 ms wall. 1 ns: sim times are binary fractions, rounded up.
  EXPECT_NEAR(pacer.due_ns(0.10), 1'000 + 25'000'000, 1);
  EXPECT_NEAR(pacer.due_ns(1.05), 1'000 + 500'000'000, 1);
}

TEST(RealtimePacer, NeverDueBeforeTheExactTime) {
  RealtimePacer pacer(3.0);
  pacer.anchor(0.0, 0);
  // 0.1 / 3 s = 33 333 333.33 ns: rounded up.
  EXPECT_EQ(pacer.due_ns(0.1), 33'333'334);
}

}  // namespace
}  // namespace cosim::dynamics::session
