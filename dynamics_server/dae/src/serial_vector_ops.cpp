#include "serial_vector_ops.hpp"

#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>

namespace cosim::dae::detail {
namespace {

double* data(N_Vector v) { return NV_DATA_S(v); }
sunindextype length(N_Vector v) { return NV_LENGTH_S(v); }

void linear_sum(realtype a, N_Vector x, realtype b, N_Vector y, N_Vector z) {
  const double* xd = data(x);
  const double* yd = data(y);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = a * xd[i] + b * yd[i];
}

void constant(realtype c, N_Vector z) { std::fill_n(data(z), length(z), c); }

void prod(N_Vector x, N_Vector y, N_Vector z) {
  const double* xd = data(x);
  const double* yd = data(y);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = xd[i] * yd[i];
}

void div(N_Vector x, N_Vector y, N_Vector z) {
  const double* xd = data(x);
  const double* yd = data(y);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = xd[i] / yd[i];
}

void scale(realtype c, N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = c * xd[i];
}

void abs_value(N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = std::abs(xd[i]);
}

void inverse(N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = 1.0 / xd[i];
}

void add_constant(N_Vector x, realtype b, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) zd[i] = xd[i] + b;
}

realtype max_norm(N_Vector x) {
  const double* xd = data(x);
  double m = 0.0;
  for (sunindextype i = 0, n = length(x); i < n; ++i) m = std::max(m, std::abs(xd[i]));
  return m;
}

realtype weighted_square_sum(N_Vector x, N_Vector w) {
  const double* xd = data(x);
  const double* wd = data(w);
  double s = 0.0;
  for (sunindextype i = 0, n = length(x); i < n; ++i) s += (xd[i] * wd[i]) * (xd[i] * wd[i]);
  return s;
}

realtype weighted_square_sum_mask(N_Vector x, N_Vector w, N_Vector id) {
  const double* xd = data(x);
  const double* wd = data(w);
  const double* md = data(id);
  double s = 0.0;
  for (sunindextype i = 0, n = length(x); i < n; ++i) {
    if (md[i] > 0.0) s += (xd[i] * wd[i]) * (xd[i] * wd[i]);
  }
  return s;
}

// As N_VWrmsNorm_Serial: sqrt(Σ (x·w)² / N), the mask version over id > 0 but still / N.
realtype wrms_norm(N_Vector x, N_Vector w) {
  return std::sqrt(weighted_square_sum(x, w) / static_cast<double>(length(x)));
}

realtype wrms_norm_mask(N_Vector x, N_Vector w, N_Vector id) {
  return std::sqrt(weighted_square_sum_mask(x, w, id) / static_cast<double>(length(x)));
}

realtype min_value(N_Vector x) {
  const double* xd = data(x);
  double m = xd[0];
  for (sunindextype i = 1, n = length(x); i < n; ++i) m = std::min(m, xd[i]);
  return m;
}

// z = Σ c_k·X_k; element by element, so X_k may alias z.
int linear_combination(int nvec, realtype* c, N_Vector* x, N_Vector z) {
  constexpr int kMax = 16;  // IDA combines at most max order + 2 = 7 vectors
  if (nvec > kMax) return -1;
  const double* xd[kMax];
  for (int k = 0; k < nvec; ++k) xd[k] = data(x[k]);
  double* zd = data(z);
  for (sunindextype i = 0, n = length(z); i < n; ++i) {
    double s = c[0] * xd[0][i];
    for (int k = 1; k < nvec; ++k) s += c[k] * xd[k][i];
    zd[i] = s;
  }
  return 0;
}

// Z_k = a_k·x + Y_k.
int scale_add_multi(int nvec, realtype* a, N_Vector x, N_Vector* y, N_Vector* z) {
  const double* xd = data(x);
  const sunindextype n = length(x);
  for (int k = 0; k < nvec; ++k) {
    const double* yd = data(y[k]);
    double* zd = data(z[k]);
    for (sunindextype i = 0; i < n; ++i) zd[i] = a[k] * xd[i] + yd[i];
  }
  return 0;
}

int dense_zero(SUNMatrix a) {
  std::fill_n(SUNDenseMatrix_Data(a), SUNDenseMatrix_LData(a), 0.0);
  return 0;
}

}  // namespace

void use_fast_serial_ops(N_Vector v) {
  N_Vector_Ops ops = v->ops;
  ops->nvlinearsum = linear_sum;
  ops->nvconst = constant;
  ops->nvprod = prod;
  ops->nvdiv = div;
  ops->nvscale = scale;
  ops->nvabs = abs_value;
  ops->nvinv = inverse;
  ops->nvaddconst = add_constant;
  ops->nvmaxnorm = max_norm;
  ops->nvwrmsnorm = wrms_norm;
  ops->nvwrmsnormmask = wrms_norm_mask;
  ops->nvmin = min_value;
  ops->nvlinearcombination = linear_combination;
  ops->nvscaleaddmulti = scale_add_multi;
  ops->nvmaxnormlocal = max_norm;
  ops->nvminlocal = min_value;
  ops->nvwsqrsumlocal = weighted_square_sum;
  ops->nvwsqrsummasklocal = weighted_square_sum_mask;
}

void use_fast_dense_zero(SUNMatrix a) { a->ops->zero = dense_zero; }

}  // namespace cosim::dae::detail
