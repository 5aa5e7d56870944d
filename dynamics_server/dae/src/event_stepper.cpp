#include "cosim/dae/event_stepper.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cosim::dae {

EventStepper::EventStepper(IdaSolver& solver, EventHandler& handler, std::size_t root_count)
    : solver_(solver), handler_(handler), root_count_(root_count) {
  if (root_count > kMaxRoots) {
    throw std::invalid_argument("EventStepper: " + std::to_string(root_count) + " root functions, at most " +
                                std::to_string(kMaxRoots));
  }
}

void EventStepper::advance_to(double t_s) {
  for (;;) {
    if (root_pending_) {
      if (root_t_s_ > t_s) break;
      root_pending_ = false;
      const std::span<const int> found(root_found_.data(), root_count_);
      step_open_ = handler_.on_roots(root_t_s_, found) == EventHandler::AfterRoots::kStepHolds;
      continue;
    }
    if (!step_open_) {
      const double t_n_s = solver_.current_time_s();
      if (t_n_s >= t_s) break;
      handler_.before_step(t_n_s);
    }
    step_open_ = false;
    if (solver_.step(t_s) == IdaSolver::Stop::kRoot) {
      root_pending_ = true;
      root_t_s_ = solver_.returned_time_s();
      std::copy_n(solver_.roots_found().begin(), root_count_, root_found_.begin());
    }
  }
}

void EventStepper::state_at(double t_s, std::span<double> y, std::span<double> yp) {
  if (!solver_.has_dense_output()) {
    std::copy(solver_.consistent_y().begin(), solver_.consistent_y().end(), y.begin());
    if (!yp.empty()) std::copy(solver_.consistent_yp().begin(), solver_.consistent_yp().end(), yp.begin());
    return;
  }
  solver_.interpolate(t_s, y, yp);
}

}  // namespace cosim::dae
