#pragma once
/// \file
/// Checks that a mesh is a proper closed surface: what `cosim-meshgen --check` and the unit
/// test demand of every part before it is written or accepted.

#include <Eigen/Geometry>
#include <cstddef>
#include <string>
#include <vector>

#include "cosim/meshgen/mesh.hpp"

namespace cosim::meshgen {

struct MeshReport {
  std::size_t vertices = 0;
  std::size_t triangles = 0;
  /// Connected pieces (triangles linked through shared vertices).
  std::size_t shells = 0;
  /// Signed volume [m³] (positive when the normals point outwards) and surface area [m²].
  double volume_m3 = 0;
  double area_m2 = 0;
  Eigen::AlignedBox3d bounds;
  /// Empty when the mesh passes: every edge used by exactly two triangles in opposite
  /// directions (closed and consistently oriented), no triangle smaller than the limit, no
  /// unused or duplicate vertex, every shell of positive volume. At most a few messages, then
  /// a count of the rest.
  std::vector<std::string> problems;
  bool ok() const { return problems.empty(); }
};

/// `min_area_m2`: triangles smaller than this count as degenerate.
MeshReport check_mesh(const Mesh& mesh, double min_area_m2 = 1e-11);

/// Generalised winding number of a closed mesh about point p: ~1 inside, ~0 outside (sum of
/// the triangles' signed solid angles over 4π).
double winding_number(const Mesh& mesh, const Eigen::Vector3d& p);

}  // namespace cosim::meshgen
