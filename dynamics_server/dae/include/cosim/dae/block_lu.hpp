#pragma once
/// @file
/// Direct solver for J·x = b that exploits a known block structure: J is n×n, column-major,
/// and its unknowns split into
///   - S1, "outputs": their columns are zero except on their own diagonal (no other row uses
///     them), so they are back-substituted last;
///   - S2, "diagonal block": their rows and columns do not touch other S2/S1 unknowns except the
///     diagonal, and no S2 row uses an S1 column; they are eliminated into a Schur complement;
///   - K, the rest: the Schur complement A = J_KK − J_K2·D2⁻¹·J_2K is factored by LU with
///     partial pivoting.
/// A DAE whose Jacobian has such structure (quadrature-like states for S1, algebraic
/// variables with a diagonal equation for S2) passes the lists in IdaOptions::block_outputs
/// and block_diagonal; the Robotino DAE (n = 24, |S1| = 2, |S2| = 9) leaves a 13×13 LU.
/// Preallocated: setup() and solve() do not allocate.

#include <cstddef>
#include <span>
#include <vector>

#include "cosim/dae/dense_matrix_ref.hpp"

namespace cosim::dae {

/// The block-structured LU above; the linear solver of IdaSolver when the structure is given.
class BlockLu {
 public:
  /// `outputs` (S1) and `diagonal` (S2) are disjoint index lists in [0, n); K is the rest.
  /// Throws std::invalid_argument otherwise.
  BlockLu(std::size_t n, std::span<const std::size_t> outputs, std::span<const std::size_t> diagonal);

  /// Factors J. Returns 0, or a positive value (recoverable failure) for a zero pivot
  /// (the row/column index + 1 of it).
  int setup(DenseMatrixRef jac);
  /// x = J⁻¹·b with the J of the last setup() (setup() keeps what it needs). x and b may alias.
  void solve(std::span<const double> b, std::span<double> x);

  std::size_t kept_size() const { return kept_.size(); }

 private:
  std::size_t n_;
  std::vector<std::size_t> out_;   // S1
  std::vector<std::size_t> diag_;  // S2
  std::vector<std::size_t> kept_;  // K
  std::vector<std::size_t> solo_;  // K ∪ S2 (the columns an S1 row may use), K first
  std::vector<double> d_diag_;     // J(s, s), s ∈ S2
  std::vector<double> col2_;       // J(K, s)/J(s, s), s ∈ S2: |S2| rows of |K|
  std::vector<double> row2_;       // J(s, K), s ∈ S2: |S2| rows of |K|
  std::vector<double> row1_;       // J(s, K ∪ S2), s ∈ S1: |S1| rows of |K| + |S2|
  std::vector<double> d_out_;      // 1/J(s, s), s ∈ S1
  std::vector<double> a_;          // Schur complement, column-major |K|×|K|, then its LU
  std::vector<std::size_t> pivot_;
  std::vector<double> work_;  // |K|
  std::vector<double> full_;  // n, the solution being assembled
};

}  // namespace cosim::dae
