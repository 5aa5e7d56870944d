#pragma once
/// @file
/// Trapezoidal velocity profiles (seed 002's manoeuvre, spec A.3): accelerate at a_max to v_max,
/// cruise, decelerate at a_max, covering a given distance; evaluated in closed form.

namespace cosim::dynamics::reference {

/// A move of `distance` (sign: direction) starting at `start_s`, at most `v_max` fast and
/// accelerating at `a_max`. When the distance is too short to reach v_max the profile is a
/// triangle (peak sqrt(|distance|·a_max)).
struct Trapezoid {
  double start_s = 0.0;
  double distance = 1.0;  ///< [m] or [rad], signed
  double v_max = 1.0;     ///< > 0 [m/s] or [rad/s]
  double a_max = 1.0;     ///< > 0 [m/s²] or [rad/s²]

  /// Throws std::invalid_argument unless all are finite and v_max, a_max > 0.
  void check() const;
  double ramp_s() const;    ///< time of one ramp
  double cruise_s() const;  ///< time at the peak speed (0 for a triangle)
  double end_s() const;     ///< start_s + 2·ramp_s + cruise_s
  double velocity(double t_s) const;      ///< 0 before start_s and after end_s
  double acceleration(double t_s) const;  ///< piecewise constant (the value after a corner at a corner)
  double position(double t_s) const;      ///< displacement since start_s: 0 before, `distance` after
};

}  // namespace cosim::dynamics::reference
