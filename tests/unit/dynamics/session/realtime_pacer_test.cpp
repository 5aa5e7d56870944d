#include "cosim/dynamics/realtime_pacer.hpp"

#include <gtest/gtest.h>

namespace cosim::dynamics {
namespace {

TEST(RealtimePacer, AnchorsAtTheFirstFrameAndScalesByTheRate) {
  RealtimePacer pacer(2.0);  // two sim seconds per wall second
  EXPECT_EQ(pacer.due_ns(0.05, 1'000), 1'000);
  // 0.05 s sim later = 25 ms wall, whatever the clock says now. 1 ns: sim times are binary
  // fractions, and the due time is rounded up.
  EXPECT_NEAR(pacer.due_ns(0.10, 999'999'999), 1'000 + 25'000'000, 1);
  EXPECT_NEAR(pacer.due_ns(1.05, 0), 1'000 + 500'000'000, 1);
}

TEST(RealtimePacer, NeverDueBeforeTheExactTime) {
  RealtimePacer pacer(3.0);
  (void)pacer.due_ns(0.0, 0);
  // 0.1 / 3 s = 33 333 333.33 ns: rounded up.
  EXPECT_EQ(pacer.due_ns(0.1, 0), 33'333'334);
}

}  // namespace
}  // namespace cosim::dynamics
