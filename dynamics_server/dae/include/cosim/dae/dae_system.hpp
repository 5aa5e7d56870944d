#pragma once
/// @file
/// The callback interface between a model and the DAE kit (IdaSolver): a backend writes its
/// equations as a DaeSystem and never sees a SUNDIALS type.
///
/// The model is an implicit DAE of size n,
///
///     F(t, y, y') = 0,   y, y' ∈ ℝⁿ,
///
/// of index 1: each component is either differential (y'_j appears in F; IdaOptions::differential
/// = 1) or algebraic (only y_j appears; 0), and ∂F/∂(y'_d, y_a) is non-singular. An ODE
/// y' = f(t, y) is the special case F = y' − f(t, y) with every component differential and
/// J = c_j·I − ∂f/∂y.
///
/// Contract of every callback:
///   - spans have size n (g: IdaOptions::root_count); write every element of the output;
///   - return 0 on success, > 0 for a recoverable failure (IDA retries with a smaller step,
///     e.g. a state outside the model's domain), < 0 to stop (IdaSolver then throws
///     SolverError naming the callback's failure);
///   - do not allocate and do not throw (they are called from C; an exception would cross
///     SUNDIALS frames): report failures through the return value;
///   - be a pure function of the arguments and of state the caller changes only between
///     IdaSolver calls (e.g. an event window moved after a root), so that IDA may evaluate them
///     at trial points in any order.
///
/// Discrete events (a contact switching, a mode change) are root functions g(t, y, y') that
/// change sign at the event; IdaSolver::step() stops there (Stop::kRoot) and the backend then
/// updates its own state (and, if F jumps, calls IdaSolver::reinit_consistent()).

#include <span>

#include "cosim/dae/dense_matrix_ref.hpp"

namespace cosim::dae {

/// A DAE F(t, y, y') = 0 with its Jacobian and root functions, as IdaSolver sees it.
class DaeSystem {
 public:
  virtual ~DaeSystem() = default;

  /// r = F(t, y, y') [units of the equations].
  virtual int residual(double t_s, std::span<const double> y, std::span<const double> yp,
                       std::span<double> r) = 0;

  /// J = ∂F/∂y + c_j·∂F/∂y' at (t, y, y'), written column-major into the n×n `jac` (every
  /// element: the matrix is not cleared between calls). c_j [1/s] is IDA's α/h. Used when
  /// IdaOptions::analytic_jacobian is set (the default, and required by BlockLu and
  /// IdaSolver::reinit_consistent); reinit_consistent also calls it with c_j = 0 and 1 to get
  /// ∂F/∂y and ∂F/∂y'.
  virtual int jacobian(double t_s, double cj, std::span<const double> y, std::span<const double> yp,
                       DenseMatrixRef jac) = 0;

  /// g = the IdaOptions::root_count root functions at (t, y, y'); IDA locates their sign
  /// changes in either direction. Never called when root_count is 0 (the default does nothing).
  virtual int roots(double /*t_s*/, std::span<const double> /*y*/, std::span<const double> /*yp*/,
                    std::span<double> /*g*/) {
    return 0;
  }
};

}  // namespace cosim::dae
