#pragma once
/// \file
/// Indexed triangle meshes built procedurally: extrusions of 2D outlines and solids of
/// revolution whose output is closed and outward oriented by construction (checked anyway by
/// check.hpp). A part may consist of several closed shells; shells may overlap, which a
/// renderer does not mind and which spares us a CSG library.
///
/// Conventions: lengths in metres; triangles counter-clockwise seen from outside (outward
/// normals by the right-hand rule); 2D outlines counter-clockwise, without a repeated last point.

#include <Eigen/Geometry>
#include <array>
#include <functional>
#include <vector>

namespace cosim::meshgen {

struct Mesh {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
};

/// Closed 2D polygon, counter-clockwise, last point not repeated.
using Outline = std::vector<Eigen::Vector2d>;

/// Places 2D geometry in 3D: (a, b, h) -> origin + a·e1 + b·e2 + h·(e1 × e2).
/// e1, e2 orthonormal; e1 × e2 is the extrusion/revolution axis.
struct Plane {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  Eigen::Vector3d e1 = Eigen::Vector3d::UnitX();
  Eigen::Vector3d e2 = Eigen::Vector3d::UnitY();
};

/// Triangulates a simple counter-clockwise polygon (no holes) by ear clipping, taking at each
/// step the ear with the largest smallest angle (fewer slivers than the first ear found).
/// Returns counter-clockwise index triples. Throws std::runtime_error if no ear is left, which
/// means the polygon is not simple.
std::vector<std::array<int, 3>> triangulate(const Outline& polygon);

/// One ring of an extrusion: height h along e1 × e2 and how far the outline is moved inwards.
struct Level {
  double h;
  double inset;
};

/// Levels of a slab from h0 to h1 whose bottom and top outer edges are rounded with radii r0
/// and r1 (0 = sharp) in `steps` segments each; `taper` adds inset per metre of height.
/// `guard` > 0 adds flat rings that wide on both sides of each rounded edge: renderers that
/// average normals over shared vertices (VTK below its feature angle) then shade only those
/// rings, not a whole cap or wall, as curved.
std::vector<Level> rounded_slab(double h0, double h1, double r0, double r1, int steps,
                                double taper = 0, double guard = 0);

/// A prism-like solid: outline(inset) at each level (heights increasing), consecutive levels
/// joined by bands, flat triangulated caps at both ends. outline() must return the same number
/// of points for every inset, in corresponding order.
Mesh extrude(const std::function<Outline(double inset)>& outline, const std::vector<Level>& levels,
             const Plane& plane = {});

/// Solid of revolution about e1 × e2 from a profile of (r, h) points, counter-clockwise in the
/// (r, h) plane (the solid on its left), `segments` facets around. Open profile (closed =
/// false): the first and last points lie on the axis (r == 0 exactly), no other does. Closed
/// profile (closed = true): a ring such as a torus, no point on the axis.
Mesh revolve(const std::vector<Eigen::Vector2d>& profile, int segments, bool closed,
             const Plane& plane = {});

/// Adds src's vertices and triangles to dst (a further shell).
void append(Mesh& dst, const Mesh& src);
/// Moves every vertex by X (a proper rotation keeps the orientation).
void transform(Mesh& mesh, const Eigen::Isometry3d& X);
/// Rounds every coordinate to a multiple of `grid` [m]: the written file then does not depend
/// on the last bits of sin/cos, which differ between C libraries.
void quantize(Mesh& mesh, double grid);

// --- 2D outline pieces -------------------------------------------------------------------

/// Appends the arc about c with radius r from angle a0 to a1 [rad] (a1 < a0 runs clockwise)
/// in n segments; the end points only if asked (neighbouring pieces may own them).
void add_arc(Outline& outline, const Eigen::Vector2d& c, double r, double a0, double a1, int n,
             bool with_start = true, bool with_end = true);

/// Axis-aligned box [a0, a1] × [b0, b1] with rounded corners, counter-clockwise from the
/// (a1, b0) corner; radius[k] and segments[k] for the corners (a1,b0), (a1,b1), (a0,b1), (a0,b0).
Outline rounded_box(double a0, double a1, double b0, double b1, const std::array<double, 4>& radius,
                    const std::array<int, 4>& segments);

}  // namespace cosim::meshgen
