#include "cosim/dae/block_lu.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cosim::dae {

BlockLu::BlockLu(std::size_t n, std::span<const std::size_t> outputs, std::span<const std::size_t> diagonal)
    : n_(n), out_(outputs.begin(), outputs.end()), diag_(diagonal.begin(), diagonal.end()) {
  std::vector<int> role(n, 0);
  for (const std::size_t i : out_) {
    if (i >= n || role[i] != 0)
      throw std::invalid_argument("BlockLu: bad or repeated output index " + std::to_string(i));
    role[i] = 1;
  }
  for (const std::size_t i : diag_) {
    if (i >= n || role[i] != 0)
      throw std::invalid_argument("BlockLu: bad or repeated diagonal index " + std::to_string(i));
    role[i] = 2;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (role[i] == 0) kept_.push_back(i);
  }
  const std::size_t m = kept_.size();
  solo_ = kept_;
  solo_.insert(solo_.end(), diag_.begin(), diag_.end());
  d_diag_.assign(diag_.size(), 0.0);
  col2_.assign(diag_.size() * m, 0.0);
  row2_.assign(diag_.size() * m, 0.0);
  row1_.assign(out_.size() * solo_.size(), 0.0);
  d_out_.assign(out_.size(), 0.0);
  a_.assign(m * m, 0.0);
  pivot_.assign(m, 0);
  work_.assign(m, 0.0);
  full_.assign(n, 0.0);
}

int BlockLu::setup(DenseMatrixRef jac) {
  const std::size_t m = kept_.size();
  for (std::size_t s = 0; s < diag_.size(); ++s) {
    const double d = jac(diag_[s], diag_[s]);
    if (d == 0.0) return static_cast<int>(diag_[s]) + 1;
    d_diag_[s] = d;
  }
  for (std::size_t s = 0; s < out_.size(); ++s) {
    const double d = jac(out_[s], out_[s]);
    if (d == 0.0) return static_cast<int>(out_[s]) + 1;
    d_out_[s] = 1.0 / d;
    for (std::size_t c = 0; c < solo_.size(); ++c) row1_[s * solo_.size() + c] = jac(out_[s], solo_[c]);
  }
  // Contiguous copies of the couplings, so that solve() does not walk J.
  for (std::size_t s = 0; s < diag_.size(); ++s) {
    for (std::size_t k = 0; k < m; ++k) {
      col2_[s * m + k] = jac(kept_[k], diag_[s]) / d_diag_[s];
      row2_[s * m + k] = jac(diag_[s], kept_[k]);
    }
  }
  // A = J_KK − Σ_s J_K,s·J_s,K / J_s,s.
  for (std::size_t c = 0; c < m; ++c) {
    for (std::size_t r = 0; r < m; ++r) a_[c * m + r] = jac(kept_[r], kept_[c]);
  }
  for (std::size_t s = 0; s < diag_.size(); ++s) {
    const double* col = &col2_[s * m];
    for (std::size_t c = 0; c < m; ++c) {
      const double row = row2_[s * m + c];
      if (row == 0.0) continue;
      for (std::size_t r = 0; r < m; ++r) a_[c * m + r] -= col[r] * row;
    }
  }
  // In-place LU with partial pivoting (row swaps recorded in pivot_).
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t p = k;
    double best = std::abs(a_[k * m + k]);
    for (std::size_t r = k + 1; r < m; ++r) {
      if (std::abs(a_[k * m + r]) > best) {
        best = std::abs(a_[k * m + r]);
        p = r;
      }
    }
    pivot_[k] = p;
    if (best == 0.0) return static_cast<int>(kept_[k]) + 1;
    if (p != k) {
      for (std::size_t c = 0; c < m; ++c) std::swap(a_[c * m + k], a_[c * m + p]);
    }
    const double inv = 1.0 / a_[k * m + k];
    for (std::size_t r = k + 1; r < m; ++r) a_[k * m + r] *= inv;
    for (std::size_t c = k + 1; c < m; ++c) {
      const double f = a_[c * m + k];
      if (f == 0.0) continue;
      for (std::size_t r = k + 1; r < m; ++r) a_[c * m + r] -= a_[k * m + r] * f;
    }
  }
  return 0;
}

void BlockLu::solve(std::span<const double> b, std::span<double> x) {
  const std::size_t m = kept_.size();
  // Reduced right-hand side b_K − J_K2·D2⁻¹·b_2.
  for (std::size_t r = 0; r < m; ++r) work_[r] = b[kept_[r]];
  for (std::size_t s = 0; s < diag_.size(); ++s) {
    const double bs = b[diag_[s]];
    if (bs == 0.0) continue;
    const double* col = &col2_[s * m];
    for (std::size_t r = 0; r < m; ++r) work_[r] -= col[r] * bs;
  }
  // LU solve.
  for (std::size_t k = 0; k < m; ++k) {
    if (pivot_[k] != k) std::swap(work_[k], work_[pivot_[k]]);
  }
  for (std::size_t c = 0; c < m; ++c) {
    const double v = work_[c];
    for (std::size_t r = c + 1; r < m; ++r) work_[r] -= a_[c * m + r] * v;
  }
  for (std::size_t c = m; c-- > 0;) {
    work_[c] /= a_[c * m + c];
    const double v = work_[c];
    for (std::size_t r = 0; r < c; ++r) work_[r] -= a_[c * m + r] * v;
  }
  // full_ holds x over K ∪ S2 (solo_ order).
  for (std::size_t r = 0; r < m; ++r) full_[r] = work_[r];
  // S2: x_s = (b_s − J_s,K·x_K) / J_ss.
  for (std::size_t s = 0; s < diag_.size(); ++s) {
    const double* row = &row2_[s * m];
    double v = b[diag_[s]];
    for (std::size_t c = 0; c < m; ++c) v -= row[c] * work_[c];
    full_[m + s] = v / d_diag_[s];
  }
  // S1: x_s = (b_s − J_s,(K ∪ S2)·x) / J_ss (S1 columns are zero off the diagonal).
  const std::size_t w = solo_.size();
  for (std::size_t s = 0; s < out_.size(); ++s) {
    const double* row = &row1_[s * w];
    double v = b[out_[s]];
    for (std::size_t c = 0; c < w; ++c) v -= row[c] * full_[c];
    x[out_[s]] = v * d_out_[s];
  }
  for (std::size_t c = 0; c < w; ++c) x[solo_[c]] = full_[c];
}

}  // namespace cosim::dae
