// Ear clipping of a simple polygon. O(n³) for n points, which is nothing for the few hundred
// points of a cap; choosing the best ear rather than the first keeps slivers out of the caps.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cosim/meshgen/mesh.hpp"

namespace cosim::meshgen {
namespace {

using Eigen::Vector2d;

double cross(const Vector2d& a, const Vector2d& b, const Vector2d& c) {
  const Vector2d u = b - a, v = c - a;
  return u.x() * v.y() - u.y() * v.x();
}

double angle_at(const Vector2d& p, const Vector2d& q, const Vector2d& r) {
  const Vector2d u = q - p, v = r - p;
  return std::atan2(std::abs(u.x() * v.y() - u.y() * v.x()), u.dot(v));
}

}  // namespace

std::vector<std::array<int, 3>> triangulate(const Outline& polygon) {
  const int n = static_cast<int>(polygon.size());
  if (n < 3) throw std::runtime_error("triangulate: fewer than 3 points");
  double area2 = 0;
  for (int i = 0; i < n; ++i) {
    const Vector2d& p = polygon[i];
    const Vector2d& q = polygon[(i + 1) % n];
    area2 += p.x() * q.y() - q.x() * p.y();
  }
  if (!(area2 > 0)) throw std::runtime_error("triangulate: polygon is not counter-clockwise");

  std::vector<int> left(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) left[i] = i;
  std::vector<std::array<int, 3>> out;
  out.reserve(static_cast<std::size_t>(n - 2));
  while (left.size() > 3) {
    const int m = static_cast<int>(left.size());
    int best = -1;
    double best_quality = -1;
    for (int k = 0; k < m; ++k) {
      const int ia = left[(k + m - 1) % m], ib = left[k], ic = left[(k + 1) % m];
      const Vector2d &a = polygon[ia], &b = polygon[ib], &c = polygon[ic];
      if (!(cross(a, b, c) > 0)) continue;  // reflex or flat corner: not an ear
      bool empty = true;
      for (int l : left) {
        if (l == ia || l == ib || l == ic) continue;
        const Vector2d& p = polygon[l];
        if (cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0) {
          empty = false;
          break;
        }
      }
      if (!empty) continue;
      const double quality = std::min({angle_at(a, b, c), angle_at(b, c, a), angle_at(c, a, b)});
      if (quality > best_quality) {  // strict: ties go to the lowest k, deterministically
        best_quality = quality;
        best = k;
      }
    }
    if (best < 0) {
      throw std::runtime_error("triangulate: no ear among " + std::to_string(m) +
                               " points; the polygon is not simple");
    }
    out.push_back({left[(best + m - 1) % m], left[best], left[(best + 1) % m]});
    left.erase(left.begin() + best);
  }
  out.push_back({left[0], left[1], left[2]});
  return out;
}

}  // namespace cosim::meshgen
