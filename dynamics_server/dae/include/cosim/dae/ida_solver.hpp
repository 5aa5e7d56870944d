#pragma once
/// @file
/// A small RAII wrapper around SUNDIALS IDA (variable-order, variable-step BDF for
/// F(t, y, y') = 0): one-step mode with dense output, root finding, a user Jacobian and either
/// SUNDIALS' dense LU or BlockLu. No SUNDIALS type appears here; everything is preallocated,
/// so step() and interpolate() do not allocate.
///
/// Use from a backend (its model is a DaeSystem, see dae_system.hpp):
///
///     MyDae dae;                                    // : cosim::dae::DaeSystem
///     IdaOptions options;                           // atol, differential (size n), ...
///     IdaSolver solver("backend x", dae, n, t0_s, y0, yp0, options);
///     solver.correct_initial_conditions(t0_s + h);  // consistent y_a, y'_d
///     while (solver.current_time_s() < t_s) {
///       if (solver.step(t_s) == IdaSolver::Stop::kRoot) { /* event at returned_time_s() */ }
///     }
///     solver.interpolate(t_s, y, yp);               // dense output inside the last step
///
/// A model with discrete modes leaves that loop to EventStepper (event_stepper.hpp).
///
/// Every failure throws SolverError (a cosim::util::NumericalError) whose text starts with `who`;
/// inconsistent sizes or options throw std::invalid_argument.

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "cosim/dae/dae_system.hpp"
#include "cosim/dae/dense_matrix_ref.hpp"
#include "cosim/dae/solver_error.hpp"

namespace cosim::dae {

/// Solver settings.
struct IdaOptions {
  double rtol = 1e-6;            ///< relative tolerance [1]
  std::span<const double> atol;  ///< per-component absolute tolerances [unit of y_i]
  /// Per-component factor on rtol (empty: 1 everywhere); 0 makes a component's weight
  /// absolute, for angles that grow without bound.
  std::span<const double> rtol_scale;
  std::span<const double> differential;  ///< 1 differential, 0 algebraic (IDASetId)
  double max_step_s = 0.02;              ///< largest internal step [s]
  long max_steps = 100000;               ///< steps per step() call before IDA gives up
  bool suppress_algebraic_error = true;  ///< leave algebraic components out of the error test
  bool analytic_jacobian = true;         ///< DaeSystem::jacobian, else IDA's difference quotients
  /// Re-factor the Newton matrix when c_j = α/h changes by more than this fraction (IDA: 0.25).
  double delta_cj_lsetup = 0.25;
  /// Block structure for BlockLu (see there); both empty: SUNDIALS' dense LU. Needs the
  /// analytic Jacobian (difference quotients do not keep the structural zeros).
  std::span<const std::size_t> block_outputs;
  std::span<const std::size_t> block_diagonal;
  int root_count = 0;  ///< number of root functions (direction: both)
};

/// Counters summed over re-initialisations.
struct IdaStats {
  long steps = 0;                 ///< internal steps taken
  long residual_evals = 0;        ///< DaeSystem::residual calls by IDA
  long jacobian_evals = 0;        ///< DaeSystem::jacobian calls by IDA (Newton matrix updates)
  long error_test_fails = 0;      ///< steps rejected by the local error test
  long nonlinear_iters = 0;       ///< Newton iterations
  long nonlinear_conv_fails = 0;  ///< Newton convergence failures (step retried smaller)
  long root_returns = 0;          ///< step() calls that returned Stop::kRoot
  long reinits = 0;               ///< reinit() / reinit_consistent() restarts
};

/// IDA integrator state for one DaeSystem of size n.
class IdaSolver {
 public:
  /// Creates IDA at (t0_s, y0, yp0) for `system` (not owned; it must outlive the solver).
  /// Throws SolverError (prefixed by `who`) if SUNDIALS refuses a setting,
  /// std::invalid_argument for inconsistent sizes.
  IdaSolver(std::string who, DaeSystem& system, std::size_t n, double t0_s, std::span<const double> y0,
            std::span<const double> yp0, const IdaOptions& options);
  ~IdaSolver();
  IdaSolver(const IdaSolver&) = delete;
  IdaSolver& operator=(const IdaSolver&) = delete;

  /// IDACalcIC(IDA_YA_YDP_INIT) at the current (initial) time: makes the algebraic components
  /// and the derivatives of the differential ones consistent; `t_next_s` gives IDA the
  /// direction and scale. The result is in consistent_y()/consistent_yp().
  void correct_initial_conditions(double t_next_s);
  std::span<const double> consistent_y() const;
  std::span<const double> consistent_yp() const;

  /// Outcome of step().
  enum class Stop { kStep, kRoot };
  /// One internal step (IDA_ONE_STEP) towards tout_s, or a return at a root found in the step
  /// just taken (then returned_time_s() is the root and roots_found() says which). After a root
  /// the next call returns the end of that step without stepping. Throws SolverError on failure.
  Stop step(double tout_s);
  /// Time of the last step() return [s].
  double returned_time_s() const;
  /// End of the last internal step, t_n [s]; the dense output covers [t_n − h_last, t_n].
  double current_time_s() const;
  /// Dense output at t_s: y (and y' unless empty), spans of size n; t_s should lie in the last
  /// step (outside it the polynomial is extrapolated). Throws SolverError before the first step
  /// after construction or a reinit (there is no interpolant yet: use consistent_y()).
  void interpolate(double t_s, std::span<double> y, std::span<double> yp);
  /// Whether interpolate() has a step to work on (false after construction and each reinit
  /// until the next step; consistent_y()/consistent_yp() then hold the start values).
  bool has_dense_output() const;
  /// Per root function after a kRoot stop: +1 / −1 crossing direction, 0 none.
  std::span<const int> roots_found() const;

  /// Restarts at (t_s, y, y') after a discontinuity (order 1, new history).
  void reinit(double t_s, std::span<const double> y, std::span<const double> yp);
  /// Makes y_a and y'_d consistent at t_s by Newton iterations on F(t, y, y') = 0 with the
  /// exact Jacobian — what IDACalcIC(IDA_YA_YDP_INIT) does, without the work vectors it
  /// allocates on every call — then reinit(). y and yp are updated in place; the result is also
  /// in consistent_y()/consistent_yp(). Converged when every correction is below 1e-3 of its
  /// error weight (a y' correction counted over 1 ms). Needs the analytic Jacobian; throws
  /// SolverError if Newton does not converge in 10 iterations or the matrix is singular.
  void reinit_consistent(double t_s, std::span<double> y, std::span<double> yp);
  /// First step size after the next reinit [s] (0: IDA's estimate).
  void set_initial_step(double h_s);
  /// Size of the last internal step [s].
  double last_step_s() const;

  /// Counters since construction.
  IdaStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosim::dae
