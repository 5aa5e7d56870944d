#include "cosim/meshgen/check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <numeric>
#include <sstream>
#include <utility>

namespace cosim::meshgen {
namespace {

using Eigen::Vector3d;
constexpr std::size_t kMaxMessages = 8;

class Problems {
 public:
  explicit Problems(std::vector<std::string>& out) : out_(out) {}
  // Call before returning: the count of what did not fit.
  void finish() {
    if (extra_ > 0) out_.push_back("... and " + std::to_string(extra_) + " more");
    extra_ = 0;
  }
  void add(const std::string& message) {
    if (out_.size() < kMaxMessages) {
      out_.push_back(message);
    } else {
      ++extra_;
    }
  }

 private:
  std::vector<std::string>& out_;
  std::size_t extra_ = 0;
};

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

MeshReport check_mesh(const Mesh& mesh, double min_area_m2) {
  MeshReport r;
  r.vertices = mesh.vertices.size();
  r.triangles = mesh.triangles.size();
  Problems problems(r.problems);
  const int nv = static_cast<int>(mesh.vertices.size());
  if (mesh.triangles.empty()) problems.add("no triangles");
  for (const Vector3d& v : mesh.vertices) r.bounds.extend(v);

  // Triangles: valid, distinct indices, not degenerate.
  std::vector<bool> used(mesh.vertices.size(), false);
  bool indices_ok = true;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    bool ok = true;
    for (int k : tri) ok = ok && k >= 0 && k < nv;
    if (!ok) {
      problems.add("triangle " + std::to_string(t) + " has a vertex index out of range");
      indices_ok = false;
      continue;
    }
    for (int k : tri) used[k] = true;
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) {
      problems.add("triangle " + std::to_string(t) + " repeats a vertex");
      continue;
    }
    const Vector3d& a = mesh.vertices[tri[0]];
    const double area = 0.5 * (mesh.vertices[tri[1]] - a).cross(mesh.vertices[tri[2]] - a).norm();
    r.area_m2 += area;
    if (!(area >= min_area_m2)) {
      std::ostringstream s;
      s << "triangle " << t << " is degenerate (area " << area << " m^2)";
      problems.add(s.str());
    }
  }
  if (!indices_ok) {
    problems.finish();
    return r;
  }
  for (int i = 0; i < nv; ++i) {
    if (!used[i]) problems.add("vertex " + std::to_string(i) + " is not used");
  }

  // Two vertices at one place make a seam that looks closed but is not connected.
  std::vector<int> order(mesh.vertices.size());
  std::iota(order.begin(), order.end(), 0);
  auto less = [&](int i, int j) {
    const Vector3d &a = mesh.vertices[i], &b = mesh.vertices[j];
    return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
  };
  std::sort(order.begin(), order.end(), less);
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (mesh.vertices[order[k - 1]] == mesh.vertices[order[k]]) {
      problems.add("vertices " + std::to_string(order[k - 1]) + " and " + std::to_string(order[k]) +
                   " coincide");
    }
  }

  // Closed and consistently oriented: each directed edge once, and its reverse once.
  std::map<std::pair<int, int>, int> directed;
  for (const auto& tri : mesh.triangles) {
    for (int k = 0; k < 3; ++k) ++directed[{tri[k], tri[(k + 1) % 3]}];
  }
  for (const auto& [edge, count] : directed) {
    const auto [a, b] = edge;
    if (count > 1) {
      problems.add("edge " + std::to_string(a) + "->" + std::to_string(b) + " is used " +
                   std::to_string(count) +
                   " times in the same direction (flipped triangle "
                   "or non-manifold edge)");
    }
    const auto reverse = directed.find({b, a});
    if (reverse == directed.end()) {
      problems.add("edge " + std::to_string(a) + "->" + std::to_string(b) +
                   " has no opposite edge (hole or flipped triangle)");
    }
  }

  // Shells and their volumes: a shell turned inside out has negative volume.
  std::vector<int> parent(mesh.vertices.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& tri : mesh.triangles) {
    for (int k = 1; k < 3; ++k) {
      const int a = find_root(parent, tri[0]), b = find_root(parent, tri[k]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::map<int, double> shell_volume;
  for (const auto& tri : mesh.triangles) {
    const double v =
        mesh.vertices[tri[0]].dot(mesh.vertices[tri[1]].cross(mesh.vertices[tri[2]])) / 6;
    shell_volume[find_root(parent, tri[0])] += v;
    r.volume_m3 += v;
  }
  r.shells = shell_volume.size();
  int shell = 0;
  for (const auto& [root, volume] : shell_volume) {
    if (!(volume > 0)) {
      std::ostringstream s;
      s << "shell " << shell << " (from vertex " << root << ") has volume " << volume
        << " m^3 (inside out?)";
      problems.add(s.str());
    }
    ++shell;
  }
  problems.finish();
  return r;
}

double winding_number(const Mesh& mesh, const Vector3d& p) {
  // Van Oosterom & Strackee: tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|).
  double total = 0;
  for (const auto& tri : mesh.triangles) {
    const Vector3d a = mesh.vertices[tri[0]] - p;
    const Vector3d b = mesh.vertices[tri[1]] - p;
    const Vector3d c = mesh.vertices[tri[2]] - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double num = a.dot(b.cross(c));
    const double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    total += 2 * std::atan2(num, den);
  }
  return total / (4 * std::numbers::pi);
}

}  // namespace cosim::meshgen
