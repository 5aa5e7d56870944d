#include "cosim/dynamics/ida_solver.hpp"

#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <cstring>
#include <vector>

#include "cosim/dynamics/backend.hpp"  // BackendError

namespace cosim::dynamics {
namespace {

std::string number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::span<double> view(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))};
}

}  // namespace

struct IdaSolver::Impl {
  std::string who;
  DaeSystem* system = nullptr;
  std::size_t n = 0;
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr;
  N_Vector yp = nullptr;
  N_Vector atol = nullptr;
  N_Vector id = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  double t_s = 0.0;
  std::vector<int> roots_found;
  std::vector<int> root_direction;
  IdaStats done;  // counters of the runs before the last reinit
  // Last message from IDA's error handler; a fixed buffer so reporting does not allocate.
  char message[512] = {};

  ~Impl() {
    if (mem != nullptr) IDAFree(&mem);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    for (N_Vector v : {y, yp, atol, id}) {
      if (v != nullptr) N_VDestroy(v);
    }
    if (ctx != nullptr) SUNContext_Free(&ctx);
  }

  [[noreturn]] void fail(const char* what, int flag) const {
    std::string text = who + ": IDA " + what + " failed (" + IDAGetReturnFlagName(flag) + ") at t_s = " +
                       number(t_s);
    if (message[0] != '\0') text += ": " + std::string(message);
    throw BackendError(text);
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

  static int residual(realtype t, N_Vector yy, N_Vector ypv, N_Vector rr, void* data) {
    auto* self = static_cast<Impl*>(data);
    return self->system->residual(t, view(yy), view(ypv), view(rr));
  }
  static int jacobian(realtype t, realtype cj, N_Vector yy, N_Vector ypv, N_Vector /*rr*/,
                      SUNMatrix jac, void* data, N_Vector, N_Vector, N_Vector) {
    auto* self = static_cast<Impl*>(data);
    const DenseMatrixRef ref{SUNDenseMatrix_Data(jac),
                             static_cast<std::size_t>(SUNDenseMatrix_Rows(jac))};
    return self->system->jacobian(t, cj, view(yy), view(ypv), ref);
  }
  static int roots(realtype t, N_Vector yy, N_Vector ypv, realtype* g, void* data) {
    auto* self = static_cast<Impl*>(data);
    return self->system->roots(t, view(yy), view(ypv), {g, self->roots_found.size()});
  }
  static void error_handler(int error_code, const char* module, const char* function, char* msg,
                            void* data) {
    auto* self = static_cast<Impl*>(data);
    if (error_code > 0) return;  // warnings are reflected in the statistics
    std::snprintf(self->message, sizeof self->message, "%s/%s: %s", module, function, msg);
  }
};

IdaSolver::IdaSolver(std::string who, DaeSystem& system, std::size_t n, double t0_s,
                     std::span<const double> y0, std::span<const double> yp0,
                     const IdaOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.who = std::move(who);
  s.system = &system;
  s.n = n;
  s.t_s = t0_s;
  if (y0.size() != n || yp0.size() != n || options.atol.size() != n ||
      options.differential.size() != n) {
    throw std::invalid_argument(s.who + ": IdaSolver needs y0, yp0, atol and id of size " +
                                std::to_string(n));
  }
  if (SUNContext_Create(nullptr, &s.ctx) != 0) throw BackendError(s.who + ": SUNContext_Create failed");
  const auto len = static_cast<sunindextype>(n);
  s.y = N_VNew_Serial(len, s.ctx);
  s.yp = N_VNew_Serial(len, s.ctx);
  s.atol = N_VNew_Serial(len, s.ctx);
  s.id = N_VNew_Serial(len, s.ctx);
  s.matrix = SUNDenseMatrix(len, len, s.ctx);
  if (s.y == nullptr || s.yp == nullptr || s.atol == nullptr || s.id == nullptr || s.matrix == nullptr) {
    throw BackendError(s.who + ": SUNDIALS allocation failed");
  }
  std::copy(y0.begin(), y0.end(), view(s.y).begin());
  std::copy(yp0.begin(), yp0.end(), view(s.yp).begin());
  std::copy(options.atol.begin(), options.atol.end(), view(s.atol).begin());
  std::copy(options.differential.begin(), options.differential.end(), view(s.id).begin());
  s.linear_solver = SUNLinSol_Dense(s.y, s.matrix, s.ctx);
  s.mem = IDACreate(s.ctx);
  if (s.linear_solver == nullptr || s.mem == nullptr) throw BackendError(s.who + ": IDACreate failed");

  s.check(IDASetErrHandlerFn(s.mem, &Impl::error_handler, &s), "IDASetErrHandlerFn");
  s.check(IDAInit(s.mem, &Impl::residual, t0_s, s.y, s.yp), "IDAInit");
  s.check(IDASetUserData(s.mem, &s), "IDASetUserData");
  s.check(IDASVtolerances(s.mem, options.rtol, s.atol), "IDASVtolerances");
  s.check(IDASetId(s.mem, s.id), "IDASetId");
  s.check(IDASetSuppressAlg(s.mem, options.suppress_algebraic_error ? SUNTRUE : SUNFALSE),
          "IDASetSuppressAlg");
  s.check(IDASetMaxStep(s.mem, options.max_step_s), "IDASetMaxStep");
  s.check(IDASetMaxNumSteps(s.mem, options.max_steps), "IDASetMaxNumSteps");
  s.check(IDASetLinearSolver(s.mem, s.linear_solver, s.matrix), "IDASetLinearSolver");
  if (options.analytic_jacobian) s.check(IDASetJacFn(s.mem, &Impl::jacobian), "IDASetJacFn");
  if (options.root_count > 0) {
    s.roots_found.assign(static_cast<std::size_t>(options.root_count), 0);
    s.check(IDARootInit(s.mem, options.root_count, &Impl::roots), "IDARootInit");
    if (!options.root_direction.empty()) {
      s.root_direction.assign(options.root_direction.begin(), options.root_direction.end());
      s.check(IDASetRootDirection(s.mem, s.root_direction.data()), "IDASetRootDirection");
    }
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

IdaSolver::Stop IdaSolver::solve(double tout_s) {
  Impl& s = *impl_;
  s.message[0] = '\0';
  realtype t_ret = s.t_s;
  const int flag = IDASolve(s.mem, tout_s, &t_ret, s.y, s.yp, IDA_NORMAL);
  s.t_s = t_ret;
  if (flag == IDA_ROOT_RETURN) {
    s.check(IDAGetRootInfo(s.mem, s.roots_found.data()), "IDAGetRootInfo");
    ++s.done.root_returns;
    return Stop::kRoot;
  }
  if (flag < 0) s.fail("IDASolve", flag);
  return Stop::kReachedTime;
}

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
  auto yv = view(s.y);
  auto ypv = view(s.yp);
  if (y.data() != yv.data()) std::copy(y.begin(), y.end(), yv.begin());
  if (yp.data() != ypv.data()) std::copy(yp.begin(), yp.end(), ypv.begin());
  s.t_s = t_s;
  s.check(IDAReInit(s.mem, t_s, s.y, s.yp), "IDAReInit");
}

double IdaSolver::time_s() const { return impl_->t_s; }
std::span<double> IdaSolver::y() { return view(impl_->y); }
std::span<double> IdaSolver::yp() { return view(impl_->yp); }
std::span<const int> IdaSolver::roots_found() const { return impl_->roots_found; }

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

}  // namespace cosim::dynamics
