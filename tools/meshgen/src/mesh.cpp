#include "cosim/meshgen/mesh.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace cosim::meshgen {
namespace {

using Eigen::Vector2d;
using Eigen::Vector3d;
constexpr double kPi = std::numbers::pi;

// Joins two rings (vertex indices, both counter-clockwise about the direction from a to b) by
// a band of triangles facing outwards. A ring of one vertex is an apex: its triangles are fans.
void add_band(Mesh& m, const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  if ((a.size() != 1 && a.size() != n) || (b.size() != 1 && b.size() != n)) {
    throw std::logic_error("add_band: rings of " + std::to_string(a.size()) + " and " +
                           std::to_string(b.size()) + " vertices");
  }
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t j1 = (j + 1) % n;
    const int a0 = a[a.size() == 1 ? 0 : j], a1 = a[a.size() == 1 ? 0 : j1];
    const int b0 = b[b.size() == 1 ? 0 : j], b1 = b[b.size() == 1 ? 0 : j1];
    if (a0 != a1) m.triangles.push_back({a0, a1, b1});
    if (b0 != b1) m.triangles.push_back({a0, b1, b0});
  }
}

Vector3d place(const Plane& p, double a, double b, double h) {
  return p.origin + a * p.e1 + b * p.e2 + h * p.e1.cross(p.e2);
}

}  // namespace

std::vector<Level> rounded_slab(double h0, double h1, double r0, double r1, int steps, double taper,
                                double guard) {
  const double g0 = r0 > 0 ? guard : 0, g1 = r1 > 0 ? guard : 0;
  if (!(h1 > h0) || r0 < 0 || r1 < 0 || guard < 0 || h0 + r0 + g0 > h1 - r1 - g1 || steps < 1) {
    throw std::invalid_argument("rounded_slab: bad dimensions");
  }
  std::vector<Level> levels;
  auto add = [&](double h, double inset) {
    inset += taper * (h - h0);
    if (!levels.empty() && levels.back().h == h && levels.back().inset == inset) return;
    levels.push_back({h, inset});
  };
  // Quarter circles: end points set exactly, so flat faces stay flat after rounding.
  if (r0 > 0) {
    if (g0 > 0) add(h0, r0 + g0);
    add(h0, r0);
    for (int k = 1; k < steps; ++k) {
      const double t = 0.5 * kPi * k / steps;
      add(h0 + r0 * (1 - std::cos(t)), r0 * (1 - std::sin(t)));
    }
    add(h0 + r0, 0);
    if (g0 > 0) add(h0 + r0 + g0, 0);
  } else {
    add(h0, 0);
  }
  if (r1 > 0) {
    if (g1 > 0) add(h1 - r1 - g1, 0);
    add(h1 - r1, 0);
    for (int k = 1; k < steps; ++k) {
      const double t = 0.5 * kPi * k / steps;
      add(h1 - r1 * (1 - std::sin(t)), r1 * (1 - std::cos(t)));
    }
    add(h1, r1);
    if (g1 > 0) add(h1, r1 + g1);
  } else {
    add(h1, 0);
  }
  return levels;
}

Mesh extrude(const std::function<Outline(double inset)>& outline, const std::vector<Level>& levels,
             const Plane& plane) {
  if (levels.size() < 2) throw std::invalid_argument("extrude: needs at least 2 levels");
  Mesh m;
  std::vector<std::vector<int>> rings;
  Outline first, last;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (i > 0 && levels[i].h < levels[i - 1].h) {
      throw std::invalid_argument("extrude: level heights must not decrease");
    }
    Outline o = outline(levels[i].inset);
    if (o.size() < 3 || (i > 0 && o.size() != rings[0].size())) {
      throw std::invalid_argument("extrude: outline sizes differ between levels");
    }
    std::vector<int> ring;
    for (const Vector2d& p : o) {
      ring.push_back(static_cast<int>(m.vertices.size()));
      m.vertices.push_back(place(plane, p.x(), p.y(), levels[i].h));
    }
    rings.push_back(std::move(ring));
    if (i == 0) first = o;
    if (i + 1 == levels.size()) last = std::move(o);
  }
  for (std::size_t i = 0; i + 1 < rings.size(); ++i) add_band(m, rings[i], rings[i + 1]);
  // Bottom cap faces -h: the counter-clockwise triangles reversed.
  for (const auto& t : triangulate(first)) {
    m.triangles.push_back({rings.front()[t[0]], rings.front()[t[2]], rings.front()[t[1]]});
  }
  for (const auto& t : triangulate(last)) {
    m.triangles.push_back({rings.back()[t[0]], rings.back()[t[1]], rings.back()[t[2]]});
  }
  return m;
}

Mesh revolve(const std::vector<Vector2d>& profile, int segments, bool closed, const Plane& plane) {
  const std::size_t n = profile.size();
  if (n < 3 || segments < 3) throw std::invalid_argument("revolve: too few points or segments");
  for (std::size_t i = 0; i < n; ++i) {
    const bool end = i == 0 || i + 1 == n;
    const bool on_axis = profile[i].x() == 0;
    if (profile[i].x() < 0 || (closed && on_axis) || (!closed && end != on_axis)) {
      throw std::invalid_argument(
          "revolve: profile point " + std::to_string(i) +
          (closed ? " must be off the axis" : " on the axis if and only if it is an end point"));
    }
  }
  std::vector<double> c(static_cast<std::size_t>(segments)), s(c.size());
  for (int j = 0; j < segments; ++j) {
    const double t = 2 * kPi * j / segments;
    c[j] = std::cos(t);
    s[j] = std::sin(t);
  }
  Mesh m;
  std::vector<std::vector<int>> rings;
  for (const Vector2d& p : profile) {
    std::vector<int> ring;
    if (p.x() == 0) {
      ring.push_back(static_cast<int>(m.vertices.size()));
      m.vertices.push_back(place(plane, 0, 0, p.y()));
    } else {
      for (int j = 0; j < segments; ++j) {
        ring.push_back(static_cast<int>(m.vertices.size()));
        m.vertices.push_back(place(plane, p.x() * c[j], p.x() * s[j], p.y()));
      }
    }
    rings.push_back(std::move(ring));
  }
  for (std::size_t i = 0; i + 1 < n; ++i) add_band(m, rings[i], rings[i + 1]);
  if (closed) add_band(m, rings.back(), rings.front());
  return m;
}

void append(Mesh& dst, const Mesh& src) {
  const int base = static_cast<int>(dst.vertices.size());
  dst.vertices.insert(dst.vertices.end(), src.vertices.begin(), src.vertices.end());
  for (const auto& t : src.triangles)
    dst.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
}

void transform(Mesh& mesh, const Eigen::Isometry3d& X) {
  for (Vector3d& v : mesh.vertices) v = X * v;
}

void quantize(Mesh& mesh, double grid) {
  for (Vector3d& v : mesh.vertices) {
    // "+ 0.0" turns -0 into +0: one bit pattern per position in the file.
    for (int k = 0; k < 3; ++k) v[k] = std::round(v[k] / grid) * grid + 0.0;
  }
}

void add_arc(Outline& outline, const Vector2d& c, double r, double a0, double a1, int n,
             bool with_start, bool with_end) {
  for (int k = with_start ? 0 : 1; k <= (with_end ? n : n - 1); ++k) {
    const double t = a0 + (a1 - a0) * k / n;
    outline.push_back(c + r * Vector2d(std::cos(t), std::sin(t)));
  }
}

Outline rounded_box(double a0, double a1, double b0, double b1, const std::array<double, 4>& radius,
                    const std::array<int, 4>& segments) {
  const std::array<Vector2d, 4> corner{Vector2d(a1, b0), Vector2d(a1, b1), Vector2d(a0, b1),
                                       Vector2d(a0, b0)};
  const std::array<Vector2d, 4> inward{Vector2d(-1, 1), Vector2d(-1, -1), Vector2d(1, -1),
                                       Vector2d(1, 1)};
  Outline o;
  for (int k = 0; k < 4; ++k) {
    if (radius[k] <= 0) {
      o.push_back(corner[k]);
    } else {
      add_arc(o, corner[k] + radius[k] * inward[k], radius[k], (k - 1) * 0.5 * kPi, k * 0.5 * kPi,
              segments[k]);
    }
  }
  return o;
}

}  // namespace cosim::meshgen
