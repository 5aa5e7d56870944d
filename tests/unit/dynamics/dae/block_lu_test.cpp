// BlockLu on its own, against Eigen's dense LU on random matrices with the block structure it
// requires (the Robotino Jacobian is checked in backends/robotino/robotino_model_test.cpp).
#include "cosim/dae/block_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace cosim::dae {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

// A random n×n matrix with the structure BlockLu needs: S1 columns zero off the diagonal,
// S2 rows and columns free of other S2 entries and S2 rows free of S1 columns; diagonally
// dominant so that it is well conditioned.
Matrix structured(std::mt19937_64& rng, std::size_t n, const std::vector<std::size_t>& s1,
                  const std::vector<std::size_t>& s2) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<int> role(n, 0);
  for (const std::size_t i : s1) role[i] = 1;
  for (const std::size_t i : s2) role[i] = 2;
  const auto ni = static_cast<Eigen::Index>(n);
  Matrix a(ni, ni);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t r = 0; r < n; ++r) {
      const bool zero = r != c && (role[c] == 1 || (role[r] == 2 && role[c] == 2));
      a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
          zero ? 0.0 : (r == c ? 4.0 + u(rng) : u(rng));
    }
  }
  return a;
}

TEST(BlockLu, SolvesLikeADenseLuOnAnyValidPartition) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::vector<std::size_t> s1{0, 5};
  const std::vector<std::size_t> s2{2, 3, 6};
  constexpr std::size_t kN = 8;
  BlockLu lu(kN, s1, s2);
  EXPECT_EQ(lu.kept_size(), kN - s1.size() - s2.size());
  for (int trial = 0; trial < 20; ++trial) {
    const Matrix a = structured(rng, kN, s1, s2);
    Eigen::VectorXd b(static_cast<Eigen::Index>(kN));
    for (Eigen::Index i = 0; i < b.size(); ++i) b(i) = u(rng);
    const Eigen::VectorXd expected = a.partialPivLu().solve(b);
    Matrix copy = a;  // setup() reads, a stays the reference
    ASSERT_EQ(lu.setup({copy.data(), kN}), 0);
    std::vector<double> x(kN);
    lu.solve({b.data(), kN}, x);
    for (std::size_t i = 0; i < kN; ++i) {
      // Both are backward-stable LUs of a well-conditioned 8×8 matrix: agreement to ~1e-14,
      // 1e-12 leaves room for the different pivot orders.
      EXPECT_NEAR(x[i], expected(static_cast<Eigen::Index>(i)), 1e-12) << trial << " " << i;
    }
  }
}

TEST(BlockLu, WithoutBlocksItIsAPlainLu) {
  std::mt19937_64 rng(12);
  constexpr std::size_t kN = 5;
  BlockLu lu(kN, {}, {});
  EXPECT_EQ(lu.kept_size(), kN);
  const Matrix a = structured(rng, kN, {}, {});
  Matrix copy = a;
  ASSERT_EQ(lu.setup({copy.data(), kN}), 0);
  std::vector<double> b{1.0, -2.0, 0.5, 3.0, 0.0};
  std::vector<double> x(kN);
  lu.solve(b, x);
  const Eigen::VectorXd r = a * Eigen::Map<Eigen::VectorXd>(x.data(), kN) -
                            Eigen::Map<Eigen::VectorXd>(b.data(), kN);
  EXPECT_LE(r.cwiseAbs().maxCoeff(), 1e-13);  // entries O(1), |b| ≤ 3: round-off level
}

TEST(BlockLu, RejectsBadPartitionsAndReportsZeroPivots) {
  const std::vector<std::size_t> out{0, 1};
  const std::vector<std::size_t> overlap{1, 2};
  EXPECT_THROW(BlockLu(4, out, overlap), std::invalid_argument);
  const std::vector<std::size_t> outside{7};
  EXPECT_THROW(BlockLu(4, out, outside), std::invalid_argument);
  BlockLu lu(3, {}, std::vector<std::size_t>{2});
  std::vector<double> zero(9, 0.0);
  EXPECT_GT(lu.setup({zero.data(), 3}), 0);
}

}  // namespace
}  // namespace cosim::dae
