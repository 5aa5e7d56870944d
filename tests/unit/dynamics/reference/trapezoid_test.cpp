// Trapezoidal moves against seed 002's manoeuvre timings (spec A.3) and against themselves:
// velocity is the derivative of position, acceleration that of velocity, and a move covers its
// distance.
#include "cosim/dynamics/reference/trapezoid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace cosim::dynamics::reference {
namespace {

TEST(Trapezoid, TheManoeuvresMovesLastWhatTheSpecSays) {
  // X move: 1 m at 1 m/s and 2.5 m/s² from 0.2 s: ramps 0.4 s, cruise 0.6 s, ends at 1.6 s.
  const Trapezoid x{0.2, 1.0, 1.0, 2.5};
  EXPECT_DOUBLE_EQ(x.ramp_s(), 0.4);
  EXPECT_NEAR(x.cruise_s(), 0.6, 1e-15);
  EXPECT_NEAR(x.end_s(), 1.6, 1e-15);
  // The turn: π rad at 1 rad/s and 2π rad/s² from 5.6 s: ends at 8.9008 s.
  const Trapezoid turn{5.6, std::numbers::pi, 1.0, 2.0 * std::numbers::pi};
  EXPECT_NEAR(turn.ramp_s(), 0.1591549, 1e-7);
  EXPECT_NEAR(turn.end_s(), 8.9008, 1e-4);
  EXPECT_DOUBLE_EQ(turn.position(20.0), std::numbers::pi);
}

TEST(Trapezoid, VelocityAndAccelerationAreTheDerivatives) {
  for (const Trapezoid& move : {Trapezoid{0.2, 1.0, 1.0, 2.5}, Trapezoid{3.8, -1.0, 1.0, 2.5},
                                Trapezoid{0.0, 0.1, 1.0, 2.5} /* a triangle: peak 0.5 m/s */}) {
    move.check();
    const double h = 1e-6;
    for (double t = move.start_s - 0.1; t < move.end_s() + 0.1; t += 0.0137) {
      EXPECT_NEAR((move.position(t + h) - move.position(t - h)) / (2 * h), move.velocity(t), 1e-6) << t;
      // Away from the corners (where acceleration jumps), acceleration is velocity's slope.
      const double r = move.ramp_s(), s = t - move.start_s;
      const double corners[] = {0.0, r, r + move.cruise_s(), 2 * r + move.cruise_s()};
      bool near_corner = false;
      for (const double c : corners) near_corner = near_corner || std::abs(s - c) < 2 * h;
      if (!near_corner) {
        EXPECT_NEAR((move.velocity(t + h) - move.velocity(t - h)) / (2 * h), move.acceleration(t), 1e-6) << t;
      }
    }
    EXPECT_EQ(move.position(move.start_s), 0.0);
    EXPECT_EQ(move.position(move.end_s() + 1.0), move.distance);
    EXPECT_LE(std::abs(move.velocity(0.5 * (move.start_s + move.end_s()))), move.v_max);
  }
  EXPECT_NEAR(Trapezoid({0.0, 0.1, 1.0, 2.5}).ramp_s() * 2.5, 0.5, 1e-15) << "triangle peak";
}

TEST(Trapezoid, RejectsNonPositiveLimits) {
  EXPECT_THROW(Trapezoid({0.0, 1.0, 0.0, 1.0}).check(), std::invalid_argument);
  EXPECT_THROW(Trapezoid({0.0, 1.0, 1.0, -1.0}).check(), std::invalid_argument);
  EXPECT_THROW(Trapezoid({0.0, NAN, 1.0, 1.0}).check(), std::invalid_argument);
}

}  // namespace
}  // namespace cosim::dynamics::reference
