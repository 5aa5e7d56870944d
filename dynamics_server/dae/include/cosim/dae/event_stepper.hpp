#pragma once
/// @file
/// The event loop every backend with discrete modes needs on top of IdaSolver: one IDA step at
/// a time, each root applied at its own time (also when IDA found it in a step that reaches
/// beyond the requested time: it then waits for the next call), and after a root that did not
/// restart the solver, the rest of the same step asked again for more roots (IDA reports one
/// root per call) before anything is read.
///
///     class Model : public cosim::dae::EventHandler { ... };   // switches modes at roots
///     EventStepper stepper(solver, model);
///     stepper.advance_to(t_s);          // steps, applies every root up to t_s
///     stepper.state_at(t_s, y, yp);     // y, y' at t_s
///
/// The stepper owns no model state; the handler owns the modes and decides whether a root
/// changes the equations (then it re-initialises the solver at the root).

#include <array>
#include <cstddef>
#include <span>

#include "cosim/dae/ida_solver.hpp"

namespace cosim::dae {

/// What a model with discrete modes does around IDA's steps and roots.
class EventHandler {
 public:
  virtual ~EventHandler() = default;

  /// What the solver holds after on_roots().
  enum class AfterRoots {
    kStepHolds,   ///< the equations are unchanged: the rest of IDA's step stays valid
    kRestarted,   ///< the handler re-initialised the solver at the roots' time
  };

  /// The solver is about to step beyond t_n_s, the end of its last step (whose dense output
  /// still covers [t_n − h, t_n]): e.g. integrate quadratures over that step. Not called
  /// between a root and the rest of its step.
  virtual void before_step(double /*t_n_s*/) {}

  /// The root functions in `found` (+1/−1 crossing, 0 none; IdaSolver::roots_found()) crossed
  /// at t_s: switch modes. The dense output still covers t_s.
  virtual AfterRoots on_roots(double t_s, std::span<const int> found) = 0;
};

/// Drives an IdaSolver over a DaeSystem with root functions for one EventHandler.
class EventStepper {
 public:
  /// At most this many root functions (the backends have up to six).
  static constexpr std::size_t kMaxRoots = 16;

  /// `solver` and `handler` are not owned and must outlive the stepper; `root_count` is
  /// IdaOptions::root_count (≤ kMaxRoots; throws std::invalid_argument otherwise).
  EventStepper(IdaSolver& solver, EventHandler& handler, std::size_t root_count);

  /// Steps until the solver has passed t_s (or stopped exactly there), applying each root at or
  /// before t_s through the handler. A root found beyond t_s is kept for a later call.
  void advance_to(double t_s);

  /// y and y' at t_s after advance_to(t_s): IDA's dense output, or — when no step has been
  /// taken since the (re)start, as at the first frame or right after a restart at t_s — the
  /// values the solver was (re)started with.
  void state_at(double t_s, std::span<double> y, std::span<double> yp);

 private:
  IdaSolver& solver_;
  EventHandler& handler_;
  std::size_t root_count_;
  bool root_pending_ = false;  // a root IDA returned that is not applied yet
  bool step_open_ = false;     // IDA's last step may hold more roots after the one applied
  double root_t_s_ = 0.0;
  std::array<int, kMaxRoots> root_found_{};
};

}  // namespace cosim::dae
