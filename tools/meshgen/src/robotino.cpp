// The Robotino parts. Dimensions follow the real robot where known (diameter about 0.37 m
// with the bumper; nine IR sensors 40° apart; a webcam on a mast at the front) and otherwise
// are chosen to clear the wheels and rollers of scenes/robotino, whose layout is fixed.
#include "cosim/meshgen/robotino.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "cosim/meshgen/stl.hpp"

namespace cosim::meshgen::robotino {
namespace {

using Eigen::Vector2d;
using Eigen::Vector3d;
constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180;
constexpr double kGrid = 1e-6;     // [m] vertex rounding, see quantize()
constexpr double kGuard = 0.0015;  // [m] flat rings beside rounded edges, see rounded_slab()

Vector2d rotated(const Vector2d& p, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {c * p.x() - s * p.y(), s * p.x() + c * p.y()};
}

Mesh finished(Mesh m) {
  quantize(m, kGrid);
  return m;
}

// 2D outlines in the (y, z) plane, extruded or revolved along x (e1 × e2 = x): the wheel axle,
// the sensor's and the camera's viewing direction.
const Plane kAcrossX{Vector3d::Zero(), Vector3d::UnitY(), Vector3d::UnitZ()};

// --- chassis ------------------------------------------------------------------------------

constexpr double kBaseRadius = 0.172;
constexpr double kBaseTop = 0.068;
constexpr double kNotchHalfWidth = 0.045;  // wheel half-width Rw + 5 mm clearance
constexpr double kNotchDepth = 0.094;   // recess back wall, from the centre: the hub boss ends here
constexpr double kInnerFillet = 0.010;  // recess corners
constexpr double kMouthFillet = 0.005;  // where the recess meets the outer wall
constexpr double kBaseEdge = 0.003;     // rounding of the base's top and bottom edges
constexpr double kDeckRadius = 0.184;
constexpr double kDeckTop = 0.086;
constexpr double kBodyTop = 0.150;

// Base outline moved inwards by `inset`: circle with three rounded recesses, counter-clockwise.
// Offsetting moves straight edges and changes fillet radii, but fillet centres stay put
// (offsets of an arc are concentric arcs), so the point count never changes.
Outline base_outline(double inset) {
  const double radius = kBaseRadius - inset;
  const double mouth = kMouthFillet - inset, inner = kInnerFillet + inset;
  const Vector2d mouth_c(std::sqrt(std::pow(kBaseRadius - kMouthFillet, 2) -
                                   std::pow(kNotchHalfWidth + kMouthFillet, 2)),
                         kNotchHalfWidth + kMouthFillet);
  const double mouth_angle = std::atan2(mouth_c.y(), mouth_c.x());
  const Vector2d inner_c(kNotchDepth + kInnerFillet, kNotchHalfWidth - kInnerFillet);
  Outline o;
  for (int k = 0; k < 3; ++k) {  // 60°, 180°, -60°: each 120° on from the one before
    const double notch = kWheelAnglesDeg[k] * kDeg;
    add_arc(o, Vector2d::Zero(), radius, notch - 120 * kDeg + mouth_angle,
            notch - mouth_angle, 28, true, false);
    // The recess along +u, then turned to its wheel.
    Outline r;
    const Vector2d flip(1, -1);
    add_arc(r, mouth_c.cwiseProduct(flip), mouth, -mouth_angle, 0.5 * kPi, 3);
    add_arc(r, inner_c.cwiseProduct(flip), inner, -0.5 * kPi, -kPi, 4);
    add_arc(r, inner_c, inner, kPi, 0.5 * kPi, 4);
    add_arc(r, mouth_c, mouth, -0.5 * kPi, mouth_angle, 3, true, false);
    for (const Vector2d& p : r) o.push_back(rotated(p, notch));
  }
  return o;
}

Outline circle_outline(double radius, int segments) {
  Outline o;
  add_arc(o, Vector2d::Zero(), radius, 0, 2 * kPi, segments, true, false);
  return o;
}

// Convex hull of three circles of radius rho whose centres are 0.03 m from the middle at
// 0°, 120°, 240° (between the wheels): a rounded triangle.
Outline rounded_triangle(double rho, int arc_segments) {
  constexpr double kLobe = 0.03;
  Outline o;
  for (int k = 0; k < 3; ++k) {
    const double a = k * 120 * kDeg;
    add_arc(o, kLobe * Vector2d(std::cos(a), std::sin(a)), rho, a - 60 * kDeg, a + 60 * kDeg,
            arc_segments);
  }
  return o;
}

// --- wheel supporter ------------------------------------------------------------------------

constexpr double kHubRadius = 0.0135;  // plate centre; the rollers come to 0.016 m
constexpr double kArmHalfWidth = 0.0045;
constexpr double kArmGap = 0.0015;       // between a roller's end and the arm beside it
constexpr double kPlateRadius = 0.0375;  // 2.5 mm inside the wheel circle: off the floor
constexpr double kPlateHalfThickness = 0.006;

// One roller group's plate, moved inwards by `inset`, arms at phi0 + k·120° (angles in the
// (y, z) plane from +y towards +z). Along an arm (u outwards, v across) the plate is the
// union of a strip |v| <= w from the hub and the wedge beyond both neighbouring rollers' end
// planes, which are 30° off the arm's normal: u·cos30° ± v·sin30° >= c, i.e.
// |v| <= sqrt(3)·u - 2c; cut off by the circle of radius ro.
Outline plate_outline(double phi0, double inset) {
  const double hub = kHubRadius - inset, w = kArmHalfWidth - inset;
  const double c = kRollerHalfLength + kArmGap + inset, ro = kPlateRadius - inset;
  const double s3 = std::sqrt(3.0);
  const double u_hub = std::sqrt(hub * hub - w * w);
  const double a_hub = std::atan2(w, u_hub);
  const double u_wedge = (w + 2 * c) / s3;
  const double u_rim = (s3 * c + std::sqrt(ro * ro - c * c)) / 2;
  const double a_rim = std::atan2(s3 * u_rim - 2 * c, u_rim);
  if (!(u_hub < u_wedge && u_wedge < u_rim))
    throw std::logic_error("plate_outline: no room for the arms");
  Outline o;
  for (int k = 0; k < 3; ++k) {
    const double phi = phi0 + k * 120 * kDeg;
    Outline arm{{u_hub, -w}, {u_wedge, -w}};
    add_arc(arm, Vector2d::Zero(), ro, -a_rim, a_rim, 6);
    arm.push_back({u_wedge, w});
    arm.push_back({u_hub, w});
    for (const Vector2d& p : arm) o.push_back(rotated(p, phi));
    add_arc(o, Vector2d::Zero(), hub, phi + a_hub, phi + 120 * kDeg - a_hub, 8, false, false);
  }
  return o;
}

}  // namespace

Mesh chassis() {
  Mesh m = extrude(base_outline, rounded_slab(0, kBaseTop, kBaseEdge, kBaseEdge, 3, 0, kGuard));
  append(m, extrude([](double inset) { return circle_outline(kDeckRadius - inset, 72); },
                    rounded_slab(kBaseTop, kDeckTop, 0.005, 0.005, 3, 0, kGuard)));
  append(m, extrude([](double inset) { return rounded_triangle(0.116 - inset, 16); },
                    rounded_slab(kDeckTop, kBodyTop, 0, 0.012, 4, 0.05, kGuard)));
  return finished(std::move(m));
}

namespace {

// The real robot's bumper leaves the wheels free (seed 000 Figs. 9-10, 22-25): three arcs
// between the wheel recesses, so the wheels and rollers are seen from outside.
constexpr double kBumperInner = 0.1725, kBumperOuter = 0.196;
constexpr double kBumperBottom = 0.002, kBumperTop = 0.036;
// Half the opening at each wheel, to the tips of the arcs' rounded ends: the recess mouth
// (kNotchHalfWidth + kMouthFillet = 0.050 m at the base wall) plus 5 mm.
constexpr double kBumperGapHalfWidth = 0.055;

// One arc of the bumper from angle a0 to a1 (counter-clockwise), its ends rounded by half
// circles, moved inwards by `inset` (the cap centres stay put, so the point count does too).
Outline bumper_arc_outline(double a0, double a1, double inset) {
  const double mid = (kBumperInner + kBumperOuter) / 2, cap = (kBumperOuter - kBumperInner) / 2 - inset;
  Outline o;
  add_arc(o, Vector2d::Zero(), mid + cap, a0, a1, 24, true, false);
  add_arc(o, mid * Vector2d(std::cos(a1), std::sin(a1)), cap, a1, a1 + kPi, 6, true, false);
  add_arc(o, Vector2d::Zero(), mid - cap, a1, a0, 24, true, false);
  add_arc(o, mid * Vector2d(std::cos(a0), std::sin(a0)), cap, a0 + kPi, a0 + 2 * kPi, 6, true, false);
  return o;
}

}  // namespace

Mesh bumper() {
  const double mid = (kBumperInner + kBumperOuter) / 2, cap = (kBumperOuter - kBumperInner) / 2;
  // Angle from a wheel's axis to an arc's end (the cap's centre), where the cap's edge is
  // kBumperGapHalfWidth from the axis.
  const double end = std::asin((kBumperGapHalfWidth + cap) / mid);
  Mesh m;
  for (int k = 0; k < 3; ++k) {  // the arc after wheel k, up to the next wheel 120° on
    const double a0 = kWheelAnglesDeg[k] * kDeg + end, a1 = (kWheelAnglesDeg[k] + 120) * kDeg - end;
    append(m, extrude([a0, a1](double inset) { return bumper_arc_outline(a0, a1, inset); },
                      rounded_slab(kBumperBottom, kBumperTop, 0.006, 0.006, 3, 0, kGuard)));
  }
  return finished(std::move(m));
}

Mesh ir_sensor() {
  Mesh m = extrude(
      [](double d) {
        return rounded_box(-0.006 + d, 0.006 - d, -0.014 + d, 0.014 - d,
                           {0.003 - d, 0.003 - d, 0.003 - d, 0.003 - d}, {3, 3, 3, 3});
      },
      rounded_slab(-0.003, 0.011, 0, 0.0015, 3, 0, 0.001), kAcrossX);
  for (double z : {-0.0075, 0.0075}) {  // emitter and detector lenses
    const Plane lens{Vector3d(0, 0, z), Vector3d::UnitY(), Vector3d::UnitZ()};
    append(m,
           revolve({{0, 0.010}, {0.0035, 0.010}, {0.0035, 0.0118}, {0.0028, 0.0125}, {0, 0.0125}},
                   20, false, lens));
  }
  return finished(std::move(m));
}

namespace {
constexpr double kCameraAxisZ = 0.0745;  // lens axis above the mast foot
const Plane kLensPlane{Vector3d(0, 0, kCameraAxisZ), Vector3d::UnitY(), Vector3d::UnitZ()};
}  // namespace

Mesh camera() {
  // Mast with a foot flange, 60 mm; its top ends inside the housing.
  Mesh m = revolve({{0, 0},
                    {0.014, 0},
                    {0.014, 0.002},
                    {0.012, 0.004},
                    {0.006, 0.006},
                    {0.006, 0.060},
                    {0, 0.060}},
                   24, false);
  // Housing 60 mm wide, 35 mm high, 32 mm deep, rounded all round.
  append(m, extrude(
                [](double d) {
                  return rounded_box(-0.030 + d, 0.030 - d, 0.057 + d, 0.092 - d,
                                     {0.008 - d, 0.008 - d, 0.008 - d, 0.008 - d}, {4, 4, 4, 4});
                },
                rounded_slab(-0.016, 0.016, 0.004, 0.004, 3, 0, kGuard), kAcrossX));
  // Lens barrel: a tube standing 8 mm out of the front face, its lip rounded.
  append(m, revolve({{0.0088, 0.014},
                     {0.0125, 0.014},
                     {0.0125, 0.022},
                     {0.0115, 0.024},
                     {0.0095, 0.024},
                     {0.0088, 0.023}},
                    32, true, kLensPlane));
  return finished(std::move(m));
}

Mesh camera_lens() {
  std::vector<Vector2d> profile{{0, 0.016}, {0.009, 0.016}, {0.009, 0.0195}};
  for (int k = 1; k < 3; ++k) {
    const double t = k * 30 * kDeg;
    profile.emplace_back(0.009 * std::cos(t), 0.0195 + 0.002 * std::sin(t));
  }
  profile.emplace_back(0, 0.0215);
  return finished(revolve(profile, 32, false, kLensPlane));
}

Mesh wheel_supporter() {
  // Front rollers (x > 0) sit at 0°, 120°, 240° about x, i.e. at -90°, 30°, 150° in the (y, z)
  // plane; their plate's arms reach out between them, at -30°, 90°, 210°. The back group is
  // turned by 60°.
  Mesh m;
  for (const double side : {1.0, -1.0}) {
    const double phi0 = side > 0 ? -30 * kDeg : 30 * kDeg;
    const double x0 = side * kRollerGroupX - kPlateHalfThickness;
    append(m, extrude([phi0](double d) { return plate_outline(phi0, d); },
                      rounded_slab(x0, x0 + 2 * kPlateHalfThickness, 0.001, 0.001, 2), kAcrossX));
  }
  // Hub through both plates (r 12.5 mm, inside their 13.5 mm centres), a boss towards the
  // robot that ends on the chassis recess wall, a cap outside.
  const double boss_end = kNotchDepth - kWheelDistance;  // -0.038 m
  append(m, revolve({{0, boss_end},
                     {0.0085, boss_end},
                     {0.010, boss_end + 0.0015},
                     {0.010, -0.017},
                     {0.0125, -0.017},
                     {0.0125, 0.017},
                     {0.011, 0.017},
                     {0.011, 0.0205},
                     {0.0095, 0.022},
                     {0, 0.022}},
                    32, false, kAcrossX));
  return finished(std::move(m));
}

std::vector<PartFile> parts() {
  std::vector<PartFile> p;
  p.push_back({"chassis.stl", false, chassis()});
  p.push_back({"bumper.stl", false, bumper()});
  p.push_back({"ir_sensor.stl", false, ir_sensor()});
  p.push_back({"camera.stl", true, camera()});
  p.push_back({"camera_lens.stl", false, camera_lens()});
  p.push_back({"wheel_supporter.stl", false, wheel_supporter()});
  return p;
}

std::string file_bytes(const PartFile& part) {
  const std::string stem = part.file.substr(0, part.file.rfind('.'));
  if (part.ascii) return ascii_stl(part.mesh, stem);
  return binary_stl(part.mesh, "cosim-meshgen " + stem + ", metres");
}

}  // namespace cosim::meshgen::robotino
