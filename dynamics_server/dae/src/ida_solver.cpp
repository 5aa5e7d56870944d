#include "cosim/dae/ida_solver.hpp"

#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "cosim/dae/block_lu.hpp"
#include "serial_vector_ops.hpp"

namespace cosim::dae {
namespace {

std::string number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::span<double> view(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))};
}

DenseMatrixRef dense_ref(SUNMatrix a) {
  return {SUNDenseMatrix_Data(a), static_cast<std::size_t>(SUNDenseMatrix_Rows(a))};
}

// BlockLu as a SUNDIALS matrix-based direct linear solver on a dense SUNMatrix.
SUNLinearSolver_Type block_type(SUNLinearSolver) { return SUNLINEARSOLVER_DIRECT; }
SUNLinearSolver_ID block_id(SUNLinearSolver) { return SUNLINEARSOLVER_CUSTOM; }
int block_initialize(SUNLinearSolver) { return SUNLS_SUCCESS; }
int block_setup(SUNLinearSolver ls, SUNMatrix a) {
  return static_cast<BlockLu*>(ls->content)->setup(dense_ref(a)) == 0 ? SUNLS_SUCCESS : SUNLS_LUFACT_FAIL;
}
int block_solve(SUNLinearSolver ls, SUNMatrix, N_Vector x, N_Vector b, realtype) {
  static_cast<BlockLu*>(ls->content)->solve(view(b), view(x));
  return SUNLS_SUCCESS;
}
sunindextype block_last_flag(SUNLinearSolver) { return 0; }
int block_free(SUNLinearSolver ls) {
  if (ls == nullptr) return SUNLS_SUCCESS;
  delete static_cast<BlockLu*>(ls->content);
  ls->content = nullptr;
  SUNLinSolFreeEmpty(ls);
  return SUNLS_SUCCESS;
}

SUNLinearSolver make_block_solver(SUNContext ctx, std::size_t n, std::span<const std::size_t> outputs,
                                  std::span<const std::size_t> diagonal) {
  SUNLinearSolver ls = SUNLinSolNewEmpty(ctx);
  if (ls == nullptr) return nullptr;
  ls->ops->gettype = block_type;
  ls->ops->getid = block_id;
  ls->ops->initialize = block_initialize;
  ls->ops->setup = block_setup;
  ls->ops->solve = block_solve;
  ls->ops->lastflag = block_last_flag;
  ls->ops->free = block_free;
  try {
    ls->content = new BlockLu(n, outputs, diagonal);
  } catch (...) {
    SUNLinSolFreeEmpty(ls);
    throw;
  }
  return ls;
}

}  // namespace

struct IdaSolver::Impl {
  std::string who;
  DaeSystem* system = nullptr;
  std::size_t n = 0;
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr;  // returned solution (and the consistent initial values)
  N_Vector yp = nullptr;
  N_Vector dky = nullptr;  // interpolation scratch
  N_Vector atol = nullptr;
  N_Vector rtol = nullptr;  // per component, for the user weight function
  N_Vector id = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  double t_ret_s = 0.0;
  // Dense output of the last step as Taylor coefficients at its end t_n: the interpolant is a
  // polynomial of degree k_used, so y(t) = Σ_k y⁽ᵏ⁾(t_n)·(t − t_n)ᵏ/k! exactly, and evaluating
  // it ourselves is ~10x cheaper than one IDAGetDky per point.
  std::vector<double> taylor;  // (max order + 1) × n, row k holds y⁽ᵏ⁾(t_n)/k!
  int taylor_order = -1;       // -1: no step taken since (re)start
  double taylor_t_s = 0.0;
  std::vector<int> roots_found;
  // reinit_consistent(): ∂F/∂(y'_d, y_a) and its factorisation, preallocated.
  std::vector<double> ic_jac0, ic_jac1, ic_residual, ic_delta;
  std::unique_ptr<BlockLu> ic_lu;
  std::vector<double> rtol_scale;
  double rtol_base = 0.0;
  bool analytic = true;
  IdaStats done;  // counters of the runs before the last reinit
  // Last error message from IDA; a fixed buffer so that reporting does not allocate.
  char message[512] = {};

  ~Impl() {
    if (mem != nullptr) IDAFree(&mem);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    for (N_Vector v : {y, yp, dky, atol, rtol, id}) {
      if (v != nullptr) N_VDestroy(v);
    }
    if (ctx != nullptr) SUNContext_Free(&ctx);
  }

  [[noreturn]] void fail(const char* what, int flag) const {
    char* name = IDAGetReturnFlagName(flag);  // malloc'ed by SUNDIALS
    std::string text = who + ": IDA " + what + " failed (" + (name != nullptr ? name : "?") +
                       ") at t_s = " + number(t_ret_s);
    std::free(name);
    if (message[0] != '\0') text += ": " + std::string(message);
    throw SolverError(text);
  }
  void check(int flag, const char* what) const {
    if (flag < 0) fail(what, flag);
  }

  IdaStats current() const {
    IdaStats s;
    long value = 0;
    if (IDAGetNumSteps(mem, &value) == IDA_SUCCESS) s.steps = value;
    if (IDAGetNumResEvals(mem, &value) == IDA_SUCCESS) s.residual_evals = value;
    if (IDAGetNumJacEvals(mem, &value) == IDA_SUCCESS) s.jacobian_evals = value;
    if (IDAGetNumErrTestFails(mem, &value) == IDA_SUCCESS) s.error_test_fails = value;
    if (IDAGetNumNonlinSolvIters(mem, &value) == IDA_SUCCESS) s.nonlinear_iters = value;
    if (IDAGetNumNonlinSolvConvFails(mem, &value) == IDA_SUCCESS) s.nonlinear_conv_fails = value;
    return s;
  }

  // ewt_i = 1 / (rtol_i·|y_i| + atol_i).
  static int weights(N_Vector yy, N_Vector ewt, void* data) {
    auto* self = static_cast<Impl*>(data);
    const auto y = view(yy);
    const auto w = view(ewt);
    const auto r = view(self->rtol);
    const auto a = view(self->atol);
    for (std::size_t j = 0; j < y.size(); ++j) {
      const double tol = r[j] * std::abs(y[j]) + a[j];
      if (!(tol > 0.0)) return -1;
      w[j] = 1.0 / tol;
    }
    return 0;
  }

  static int residual(realtype t, N_Vector yy, N_Vector ypv, N_Vector rr, void* data) {
    auto* self = static_cast<Impl*>(data);
    return self->system->residual(t, view(yy), view(ypv), view(rr));
  }
  static int jacobian(realtype t, realtype cj, N_Vector yy, N_Vector ypv, N_Vector /*rr*/, SUNMatrix jac,
                      void* data, N_Vector, N_Vector, N_Vector) {
    auto* self = static_cast<Impl*>(data);
    return self->system->jacobian(t, cj, view(yy), view(ypv), dense_ref(jac));
  }
  static int roots(realtype t, N_Vector yy, N_Vector ypv, realtype* g, void* data) {
    auto* self = static_cast<Impl*>(data);
    return self->system->roots(t, view(yy), view(ypv), {g, self->roots_found.size()});
  }

  void refresh_taylor() {
    realtype tn = t_ret_s;
    int order = 0;
    check(IDAGetCurrentTime(mem, &tn), "IDAGetCurrentTime");
    check(IDAGetLastOrder(mem, &order), "IDAGetLastOrder");
    if (taylor_order >= 0 && tn == taylor_t_s) return;  // same step (return after a root)
    double factorial = 1.0;
    for (int k = 0; k <= order; ++k) {
      if (k > 0) factorial *= k;
      check(IDAGetDky(mem, tn, k, dky), "IDAGetDky");
      const auto v = view(dky);
      for (std::size_t j = 0; j < n; ++j) taylor[static_cast<std::size_t>(k) * n + j] = v[j] / factorial;
    }
    taylor_order = order;
    taylor_t_s = tn;
  }
  static void error_handler(int error_code, const char* module, const char* function, char* msg, void* data) {
    auto* self = static_cast<Impl*>(data);
    if (error_code > 0) return;  // warnings show in the statistics
    std::snprintf(self->message, sizeof self->message, "%s/%s: %s", module, function, msg);
  }
};

IdaSolver::IdaSolver(std::string who, DaeSystem& system, std::size_t n, double t0_s,
                     std::span<const double> y0, std::span<const double> yp0, const IdaOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.who = std::move(who);
  s.system = &system;
  s.n = n;
  s.t_ret_s = t0_s;
  if (y0.size() != n || yp0.size() != n || options.atol.size() != n || options.differential.size() != n ||
      (!options.rtol_scale.empty() && options.rtol_scale.size() != n)) {
    throw std::invalid_argument(s.who + ": IdaSolver needs y0, yp0, atol, id (and rtol_scale) of size " +
                                std::to_string(n));
  }
  if (SUNContext_Create(nullptr, &s.ctx) != 0) throw SolverError(s.who + ": SUNContext_Create failed");
  const auto len = static_cast<sunindextype>(n);
  s.y = N_VNew_Serial(len, s.ctx);
  s.yp = N_VNew_Serial(len, s.ctx);
  s.dky = N_VNew_Serial(len, s.ctx);
  s.atol = N_VNew_Serial(len, s.ctx);
  s.id = N_VNew_Serial(len, s.ctx);
  s.matrix = SUNDenseMatrix(len, len, s.ctx);
  if (s.y == nullptr || s.yp == nullptr || s.dky == nullptr || s.atol == nullptr || s.id == nullptr ||
      s.matrix == nullptr) {
    throw SolverError(s.who + ": SUNDIALS allocation failed");
  }
  // IDA clones its own vectors from y, so they inherit these ops.
  for (N_Vector v : {s.y, s.yp, s.dky, s.atol, s.id}) detail::use_fast_serial_ops(v);
  detail::use_fast_dense_zero(s.matrix);
  std::copy(y0.begin(), y0.end(), view(s.y).begin());
  std::copy(yp0.begin(), yp0.end(), view(s.yp).begin());
  std::copy(options.atol.begin(), options.atol.end(), view(s.atol).begin());
  std::copy(options.differential.begin(), options.differential.end(), view(s.id).begin());
  const bool block = !options.block_outputs.empty() || !options.block_diagonal.empty();
  if (block && !options.analytic_jacobian) {
    throw std::invalid_argument(s.who + ": BlockLu needs the analytic Jacobian");
  }
  s.taylor.assign(6 * n, 0.0);  // IDA's maximum order is 5
  s.analytic = options.analytic_jacobian;
  s.rtol_base = options.rtol;
  s.rtol_scale.assign(n, 1.0);
  if (!options.rtol_scale.empty()) {
    std::copy(options.rtol_scale.begin(), options.rtol_scale.end(), s.rtol_scale.begin());
  }
  s.ic_jac0.assign(n * n, 0.0);
  s.ic_jac1.assign(n * n, 0.0);
  s.ic_residual.assign(n, 0.0);
  s.ic_delta.assign(n, 0.0);
  s.ic_lu = std::make_unique<BlockLu>(n, options.block_outputs, options.block_diagonal);
  s.linear_solver = block ? make_block_solver(s.ctx, n, options.block_outputs, options.block_diagonal)
                          : SUNLinSol_Dense(s.y, s.matrix, s.ctx);
  s.mem = IDACreate(s.ctx);
  if (s.linear_solver == nullptr || s.mem == nullptr) throw SolverError(s.who + ": IDACreate failed");

  s.check(IDASetErrHandlerFn(s.mem, &Impl::error_handler, &s), "IDASetErrHandlerFn");
  s.check(IDAInit(s.mem, &Impl::residual, t0_s, s.y, s.yp), "IDAInit");
  s.check(IDASetUserData(s.mem, &s), "IDASetUserData");
  if (options.rtol_scale.empty()) {
    s.check(IDASVtolerances(s.mem, options.rtol, s.atol), "IDASVtolerances");
  } else {
    s.rtol = N_VNew_Serial(len, s.ctx);
    if (s.rtol == nullptr) throw SolverError(s.who + ": SUNDIALS allocation failed");
    detail::use_fast_serial_ops(s.rtol);
    const auto r = view(s.rtol);
    for (std::size_t j = 0; j < n; ++j) r[j] = options.rtol * options.rtol_scale[j];
    s.check(IDAWFtolerances(s.mem, &Impl::weights), "IDAWFtolerances");
  }
  s.check(IDASetId(s.mem, s.id), "IDASetId");
  s.check(IDASetSuppressAlg(s.mem, options.suppress_algebraic_error ? SUNTRUE : SUNFALSE),
          "IDASetSuppressAlg");
  s.check(IDASetMaxStep(s.mem, options.max_step_s), "IDASetMaxStep");
  s.check(IDASetMaxNumSteps(s.mem, options.max_steps), "IDASetMaxNumSteps");
  s.check(IDASetLinearSolver(s.mem, s.linear_solver, s.matrix), "IDASetLinearSolver");
  s.check(IDASetDeltaCjLSetup(s.mem, options.delta_cj_lsetup), "IDASetDeltaCjLSetup");
  if (options.analytic_jacobian) s.check(IDASetJacFn(s.mem, &Impl::jacobian), "IDASetJacFn");
  if (options.root_count > 0) {
    s.roots_found.assign(static_cast<std::size_t>(options.root_count), 0);
    s.check(IDARootInit(s.mem, options.root_count, &Impl::roots), "IDARootInit");
    s.check(IDASetNoInactiveRootWarn(s.mem), "IDASetNoInactiveRootWarn");
  }
}

IdaSolver::~IdaSolver() = default;

void IdaSolver::correct_initial_conditions(double t_next_s) {
  Impl& s = *impl_;
  s.message[0] = '\0';
  const int flag = IDACalcIC(s.mem, IDA_YA_YDP_INIT, t_next_s);
  if (flag < 0) s.fail("IDACalcIC", flag);
  s.check(IDAGetConsistentIC(s.mem, s.y, s.yp), "IDAGetConsistentIC");
}

std::span<const double> IdaSolver::consistent_y() const { return view(impl_->y); }
std::span<const double> IdaSolver::consistent_yp() const { return view(impl_->yp); }

IdaSolver::Stop IdaSolver::step(double tout_s) {
  Impl& s = *impl_;
  s.message[0] = '\0';
  realtype t_ret = s.t_ret_s;
  const int flag = IDASolve(s.mem, tout_s, &t_ret, s.y, s.yp, IDA_ONE_STEP);
  s.t_ret_s = t_ret;
  if (flag < 0) s.fail("IDASolve", flag);
  s.refresh_taylor();
  if (flag == IDA_ROOT_RETURN) {
    s.check(IDAGetRootInfo(s.mem, s.roots_found.data()), "IDAGetRootInfo");
    ++s.done.root_returns;
    return Stop::kRoot;
  }
  return Stop::kStep;
}

double IdaSolver::returned_time_s() const { return impl_->t_ret_s; }

double IdaSolver::current_time_s() const {
  realtype t = impl_->t_ret_s;
  IDAGetCurrentTime(impl_->mem, &t);
  return t;
}

void IdaSolver::interpolate(double t_s, std::span<double> y, std::span<double> yp) {
  Impl& s = *impl_;
  if (s.taylor_order < 0) {
    throw SolverError(s.who + ": dense output asked at t_s = " + number(t_s) + " before the first step");
  }
  // Horner in dt = t − t_n for y and for y' = Σ k·c_k·dtᵏ⁻¹.
  const double dt = t_s - s.taylor_t_s;
  const std::size_t n = s.n;
  const auto top = static_cast<std::size_t>(s.taylor_order);
  for (std::size_t j = 0; j < n; ++j) y[j] = s.taylor[top * n + j];
  for (std::size_t k = top; k-- > 0;) {
    for (std::size_t j = 0; j < n; ++j) y[j] = y[j] * dt + s.taylor[k * n + j];
  }
  if (yp.empty()) return;
  for (std::size_t j = 0; j < n; ++j) {
    yp[j] = top > 0 ? static_cast<double>(top) * s.taylor[top * n + j] : 0.0;
  }
  for (std::size_t k = top; k-- > 1;) {
    for (std::size_t j = 0; j < n; ++j) yp[j] = yp[j] * dt + static_cast<double>(k) * s.taylor[k * n + j];
  }
}

bool IdaSolver::has_dense_output() const { return impl_->taylor_order >= 0; }

std::span<const int> IdaSolver::roots_found() const { return impl_->roots_found; }

void IdaSolver::reinit(double t_s, std::span<const double> y, std::span<const double> yp) {
  Impl& s = *impl_;
  const IdaStats c = s.current();
  s.done.steps += c.steps;
  s.done.residual_evals += c.residual_evals;
  s.done.jacobian_evals += c.jacobian_evals;
  s.done.error_test_fails += c.error_test_fails;
  s.done.nonlinear_iters += c.nonlinear_iters;
  s.done.nonlinear_conv_fails += c.nonlinear_conv_fails;
  ++s.done.reinits;
  std::copy(y.begin(), y.end(), view(s.y).begin());
  std::copy(yp.begin(), yp.end(), view(s.yp).begin());
  s.t_ret_s = t_s;
  s.taylor_order = -1;
  s.check(IDAReInit(s.mem, t_s, s.y, s.yp), "IDAReInit");
}

void IdaSolver::reinit_consistent(double t_s, std::span<double> y, std::span<double> yp) {
  Impl& s = *impl_;
  if (!s.analytic) throw std::invalid_argument(s.who + ": reinit_consistent needs the analytic Jacobian");
  const std::size_t n = s.n;
  const auto id = view(s.id);
  const auto atol = view(s.atol);
  s.t_ret_s = t_s;
  for (int iteration = 0;; ++iteration) {
    if (iteration == 10) {
      throw SolverError(s.who + ": consistent re-initialisation did not converge at t_s = " + number(t_s));
    }
    // Columns: ∂F/∂y'_j for differential j (J(1) − J(0)), ∂F/∂y_j for algebraic j (J(0)).
    const DenseMatrixRef j0{s.ic_jac0.data(), n};
    const DenseMatrixRef j1{s.ic_jac1.data(), n};
    if (s.system->residual(t_s, y, yp, s.ic_residual) != 0 || s.system->jacobian(t_s, 0.0, y, yp, j0) != 0 ||
        s.system->jacobian(t_s, 1.0, y, yp, j1) != 0) {
      throw SolverError(s.who +
                         ": model evaluation failed in the re-initialisation at t_s = " + number(t_s));
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (id[c] == 0.0) continue;
      for (std::size_t r = 0; r < n; ++r) j0(r, c) = j1(r, c) - j0(r, c);
    }
    if (s.ic_lu->setup(j0) != 0) {
      throw SolverError(s.who + ": singular consistency matrix at t_s = " + number(t_s));
    }
    s.ic_lu->solve(s.ic_residual, s.ic_delta);
    // Converged when the correction is small against the error weights; a y' correction
    // counts over a 1 ms step. F is usually linear in (y'_d, y_a) up to kinks such as
    // saturations, so this takes one or two iterations.
    constexpr double kStep_s = 1e-3;
    double norm = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const bool algebraic = id[j] == 0.0;
      double& target = algebraic ? y[j] : yp[j];
      target -= s.ic_delta[j];
      const double weight = s.rtol_base * s.rtol_scale[j] * std::abs(y[j]) + atol[j];
      norm = std::max(norm, std::abs(s.ic_delta[j]) * (algebraic ? 1.0 : kStep_s) / weight);
    }
    if (norm <= 1e-3) break;
  }
  reinit(t_s, y, yp);  // also keeps them as consistent_y()/consistent_yp()
}

void IdaSolver::set_initial_step(double h_s) {
  impl_->check(IDASetInitStep(impl_->mem, h_s), "IDASetInitStep");
}

double IdaSolver::last_step_s() const {
  realtype h = 0.0;
  IDAGetLastStep(impl_->mem, &h);
  return h;
}

IdaStats IdaSolver::stats() const {
  const Impl& s = *impl_;
  IdaStats total = s.done;
  const IdaStats c = s.current();
  total.steps += c.steps;
  total.residual_evals += c.residual_evals;
  total.jacobian_evals += c.jacobian_evals;
  total.error_test_fails += c.error_test_fails;
  total.nonlinear_iters += c.nonlinear_iters;
  total.nonlinear_conv_fails += c.nonlinear_conv_fails;
  return total;
}

}  // namespace cosim::dae
