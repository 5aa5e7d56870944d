#pragma once
/// @file
/// A non-owning view of a column-major dense matrix (the layout of SUNDIALS dense matrices),
/// the form in which DaeSystem::jacobian writes J and BlockLu reads it.

#include <cstddef>

namespace cosim::dae {

/// Column-major view: element (i, j) at data[j·ld + i].
struct DenseMatrixRef {
  double* data;    ///< first element
  std::size_t ld;  ///< leading dimension (rows)
  double& operator()(std::size_t i, std::size_t j) const { return data[j * ld + i]; }
};

}  // namespace cosim::dae
