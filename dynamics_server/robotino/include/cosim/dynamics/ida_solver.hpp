#pragma once
/// @file
/// A small RAII wrapper around SUNDIALS IDA (variable-order BDF for F(t, y, y') = 0) with a
/// dense direct linear solver, an optional user Jacobian and root finding. No SUNDIALS type
/// appears here; the wrapper preallocates everything, so solve() does not allocate.

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "cosim/dynamics/dense_matrix_ref.hpp"

namespace cosim::dynamics {

/// The DAE seen by IdaSolver. Callbacks return 0 on success, > 0 for a recoverable failure
/// (IDA retries with a smaller step), < 0 to stop.
class DaeSystem {
 public:
  virtual ~DaeSystem() = default;
  /// r = F(t, y, y').
  virtual int residual(double t_s, std::span<const double> y, std::span<const double> yp,
                       std::span<double> r) = 0;
  /// J = ∂F/∂y + c_j·∂F/∂y', column-major n×n.
  virtual int jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
                       DenseMatrixRef jac) = 0;
  /// g(t, y, y'), root_count() values.
  virtual int roots(double t_s, std::span<const double> y, std::span<const double> yp,
                    std::span<double> g) = 0;
};

/// Solver settings.
struct IdaOptions {
  double rtol = 1e-6;                    ///< relative tolerance [1]
  std::span<const double> atol;          ///< per-component absolute tolerances [unit of y_i]
  std::span<const double> differential;  ///< 1 differential, 0 algebraic (IDASetId)
  double max_step_s = 0.02;              ///< largest internal step [s]
  long max_steps = 1000000;              ///< per solve() call
  bool suppress_algebraic_error = true;  ///< leave algebraic components out of the error test
  bool analytic_jacobian = true;         ///< DaeSystem::jacobian, else IDA's difference quotients
  int root_count = 0;                    ///< number of root functions
  std::span<const int> root_direction;   ///< per root: +1 rising, −1 falling, 0 both (may be empty)
};

/// Counters, summed over re-initialisations.
struct IdaStats {
  long steps = 0;
  long residual_evals = 0;
  long jacobian_evals = 0;
  long error_test_fails = 0;
  long nonlinear_iters = 0;
  long nonlinear_conv_fails = 0;
  long root_returns = 0;
  long reinits = 0;
};

/// IDA integrator state for one DaeSystem of size n.
class IdaSolver {
 public:
  /// Creates IDA at (t0_s, y0, yp0) with `options`. Throws BackendError (prefixed by `who`) if
  /// SUNDIALS refuses a setting.
  IdaSolver(std::string who, DaeSystem& system, std::size_t n, double t0_s,
            std::span<const double> y0, std::span<const double> yp0, const IdaOptions& options);
  ~IdaSolver();
  IdaSolver(const IdaSolver&) = delete;
  IdaSolver& operator=(const IdaSolver&) = delete;

  /// IDACalcIC(IDA_YA_YDP_INIT): makes the algebraic components and the derivatives of the
  /// differential ones consistent at the current time; `t_next_s` gives the direction and scale.
  void correct_initial_conditions(double t_next_s);

  /// Outcome of solve().
  enum class Stop { kReachedTime, kRoot };
  /// Integrates towards tout_s (IDA_NORMAL, interpolated output). Stops early at a root: then
  /// time_s() is the root and roots_found() says which. Throws BackendError on failure.
  Stop solve(double tout_s);

  /// Restarts the integrator at (t_s, y, y') (after a discrete change of the model).
  void reinit(double t_s, std::span<const double> y, std::span<const double> yp);

  /// Time of y()/yp() [s].
  double time_s() const;
  /// Solution and its derivative at time_s().
  std::span<double> y();
  std::span<double> yp();
  /// Per root function after a kRoot stop: +1 / −1 crossing direction, 0 none.
  std::span<const int> roots_found() const;

  IdaStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosim::dynamics
