#include "cosim/robotino_mjcf/robotino_mjcf.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string_view>

#include "cosim/dynamics/robotino_common/robotino_geometry.hpp"

namespace cosim::robotino_mjcf {
namespace {

using dynamics::ParamError;
using dynamics::Params;
using std::numbers::pi;

// Shortest text that reads back as the same double: the file is reproducible and the
// controller's numbers are exactly the robotino backend's.
std::string num(double value) {
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  return std::string(text.data(), result.ptr);
}

// Poses, masses and inertias derived by trigonometry and sums: 13 significant digits, and
// below 1e-15 zero, so that 0.066 does not print as 0.06600000000000002 nor 0 as -0 or 3e-18.
std::string vec(std::initializer_list<double> values) {
  std::string out;
  for (const double v : values) {
    if (!out.empty()) out += ' ';
    std::array<char, 32> text{};
    const double value = std::abs(v) < 1e-15 ? 0.0 : v;
    const auto result =
        std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::general, 13);
    out.append(text.data(), result.ptr);
  }
  return out;
}

// A mesh vertex coordinate: 1e-10 m steps, far below the facets' sag (µm), and a quarter of the
// file size of round-trip digits.
std::string coordinate(double value_m) {
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value_m, std::chars_format::fixed, 10);
  std::string out(text.data(), result.ptr);
  while (out.back() == '0') out.pop_back();  // "0.0066410162", "0."; then "0" for zero
  if (out.back() == '.') out.pop_back();
  return out == "-0" ? "0" : out;
}

// Quaternion (w x y z) of a rotation by `angle` about the unit axis e_k (k = 0: x, 2: z).
std::string axis_quat(int k, double angle_rad) {
  std::array<double, 4> q{std::cos(angle_rad / 2.0), 0.0, 0.0, 0.0};
  q[static_cast<std::size_t>(k) + 1] = std::sin(angle_rad / 2.0);
  return vec({q[0], q[1], q[2], q[3]});
}

void require_positive(double value, const std::string& what) {
  if (!(value > 0.0)) {
    throw ParamError("robotino MJCF: " + what + " = " + num(value) +
                     " kg or kg m^2 must be > 0; the robot's mass and inertias cannot be split into its bodies");
  }
}

// The body masses and inertias that add up to the robotino backend's lumped parameters.
struct MassSplit {
  double roller_mass_kg, roller_axial_kg_m2, roller_transverse_kg_m2;
  double hub_mass_kg, hub_axial_kg_m2, hub_transverse_kg_m2;
  double chassis_mass_kg, chassis_yaw_kg_m2;
  double armature_kg_m2;  // the rotor seen at the wheel: J_m·N²
};

MassSplit split_masses(const Params& p, const MjcfOptions& o) {
  const double rw = p.get("wheel_radius_m");
  const double big_r = p.get("wheel_distance_m");
  const double r_max = p.get("roller_max_radius_m");
  const double axle_to_roller = rw - r_max;
  const double half_length = rw * std::sin(pi / 6.0);
  MassSplit s{};
  // The lumped parameters' own assumptions (robotino MODEL.md §6): the roller is a cylinder of
  // radius r_max, the wheel a disk of radius Rw; their masses follow from their inertias.
  s.roller_axial_kg_m2 = p.get("roller_inertia_kg_m2");
  require_positive(s.roller_axial_kg_m2, "roller_inertia_kg_m2");
  s.roller_mass_kg = 2.0 * s.roller_axial_kg_m2 / (r_max * r_max);
  s.roller_transverse_kg_m2 =
      s.roller_mass_kg * (3.0 * r_max * r_max + 4.0 * half_length * half_length) / 12.0;
  const double wheel_axial = p.get("wheel_inertia_kg_m2");
  const double wheel_mass = 2.0 * wheel_axial / (rw * rw);
  const int rollers = dynamics::robotino_common::kRobotinoRollersPerWheel;
  // I_w is the wheel with its rollers about the axle: the hub gets the rest.
  s.hub_mass_kg = wheel_mass - rollers * s.roller_mass_kg;
  s.hub_axial_kg_m2 = wheel_axial - rollers * (s.roller_mass_kg * axle_to_roller * axle_to_roller +
                                               s.roller_transverse_kg_m2);
  require_positive(s.hub_mass_kg, "wheel hub mass (2 I_w / Rw^2 less the rollers')");
  require_positive(s.hub_axial_kg_m2, "wheel hub inertia (I_w less the rollers')");
  s.hub_transverse_kg_m2 = 0.55 * s.hub_axial_kg_m2;  // a thin disk's is 0.5: keeps the triangle inequality strict
  // m and I_z are the whole robot's: the chassis gets what the wheels do not carry. The rollers'
  // yaw inertia about C does not depend on the wheel angle: Σ_j sin²(θ + j·60°) = 3.
  const int wheels = dynamics::robotino_common::kRobotinoWheelCount;
  s.chassis_mass_kg = p.get("mass_kg") - wheels * wheel_mass;
  double wheel_yaw = s.hub_mass_kg * big_r * big_r + s.hub_transverse_kg_m2;
  for (int j = 0; j < rollers; ++j) {
    const double offset = (j % 2 == 0 ? 1.0 : -1.0) * o.roller_offset_m;
    const double sin_alpha = std::sin(j * dynamics::robotino_common::kRobotinoRollerPitch_rad);
    wheel_yaw += s.roller_mass_kg * ((big_r + offset) * (big_r + offset) +
                                     axle_to_roller * axle_to_roller * sin_alpha * sin_alpha) +
                 s.roller_axial_kg_m2 * sin_alpha * sin_alpha +
                 s.roller_transverse_kg_m2 * (1.0 - sin_alpha * sin_alpha);
  }
  s.chassis_yaw_kg_m2 = p.get("yaw_inertia_kg_m2") - wheels * wheel_yaw;
  require_positive(s.chassis_mass_kg, "chassis mass (mass_kg less the wheels')");
  require_positive(s.chassis_yaw_kg_m2, "chassis yaw inertia (yaw_inertia_kg_m2 less the wheels')");
  const double n = p.get("gear_ratio");
  s.armature_kg_m2 = p.get("rotor_inertia_kg_m2") * n * n;
  return s;
}

// The barrel of one roller in its own frame (axis y): the surface of revolution of the wheel's
// circle, r(a) = √(Rw² − a²) − (Rw − r_max), over the roller's 60° of it (|a| ≤ Rw·sin 30°), so
// that the six rollers together trace the circle of radius Rw and hand over at the switches.
// MuJoCo collides its convex hull; the samples are uniform in the wheel angle.
std::string roller_vertices(const Params& p, const MjcfOptions& o) {
  const double rw = p.get("wheel_radius_m");
  const double axle_to_roller = rw - p.get("roller_max_radius_m");
  std::string out;
  for (int k = 0; k < o.profile_points; ++k) {
    const double psi = (-pi / 6.0) + (pi / 3.0) * k / (o.profile_points - 1);
    const double a = rw * std::sin(psi);
    const double radius = rw * std::cos(psi) - axle_to_roller;
    for (int m = 0; m < o.facets; ++m) {
      const double beta = 2.0 * pi * m / o.facets;
      if (!out.empty()) out += "  ";
      out += coordinate(radius * std::cos(beta)) + ' ' + coordinate(a) + ' ' + coordinate(radius * std::sin(beta));
    }
  }
  return out;
}

void check_options(const MjcfOptions& o) {
  if (!(o.timestep_s > 0.0 && o.timestep_s <= 0.01)) throw ParamError("robotino MJCF: timestep must be in (0, 0.01] s");
  if (!(o.roller_offset_m >= 0.0 && o.roller_offset_m <= 0.05)) {
    throw ParamError("robotino MJCF: roller offset must be in [0, 0.05] m");
  }
  if (o.profile_points < 3 || o.profile_points > 400 || o.facets < 8 || o.facets > 4096) {
    throw ParamError("robotino MJCF: profile points must be in [3, 400] and facets in [8, 4096]");
  }
  if (!(o.friction > 0.0 && o.friction <= 10.0)) throw ParamError("robotino MJCF: friction must be in (0, 10]");
  if (o.noslip_iterations < 0 || o.noslip_iterations > 1000) {
    throw ParamError("robotino MJCF: noslip iterations must be in [0, 1000]");
  }
  if (!(o.contact_time_s >= 2.0 * o.timestep_s && o.contact_time_s <= 1.0)) {
    throw ParamError("robotino MJCF: the contact time must be at least twice the timestep (MuJoCo's rule for a "
                     "stable soft contact) and at most 1 s");
  }
}

}  // namespace

std::string robotino_mjcf(const Params& params, const MjcfOptions& options) {
  check_options(options);
  const MassSplit s = split_masses(params, options);
  const double rw = params.get("wheel_radius_m");
  const double big_r = params.get("wheel_distance_m");
  const double axle_to_roller = rw - params.get("roller_max_radius_m");
  // Robot frame as scenes/robotino: the centre of the chassis bottom, 0.02 m above the floor;
  // the wheel centres 0.02 m above it, so the rollers just touch the floor.
  const double base_height_m = rw / 2.0;

  std::string x;
  x += "<mujoco model=\"Robotino\">\n";
  x += "  <!-- Generated by cosim-robotino-mjcf (tools/robotino_mjcf) from the robotino backend's\n"
       "       parameters; do not edit: regenerate with\n"
       "       cosim-robotino-mjcf -o scenes/robotino/mujoco/robotino.xml\n"
       "       Model and choices: dynamics_server/backends/mujoco/MODEL.md section 9. -->\n";
  x += "  <compiler angle=\"radian\"/>\n";
  // One contact time for floor and rollers alike: MuJoCo mixes the two geoms' solref.
  x += "  <default>\n    <geom solref=\"" + num(options.contact_time_s) + " 1\"/>\n  </default>\n";
  // Elliptic friction cones, friction 10x harder than the normal direction (impratio): the
  // seed's wheels and rollers roll without slip, MuJoCo's soft contacts creep a little.
  x += "  <option timestep=\"" + num(options.timestep_s) +
       "\" integrator=\"Euler\" cone=\"elliptic\" impratio=\"10\" noslip_iterations=\"" +
       std::to_string(options.noslip_iterations) + "\"/>\n";
  x += "  <custom>\n";
  x += "    <!-- Read by the mujoco backend: its Robotino controller drives axle1..3 through drive1..3;\n"
       "         z is simulated but not a scene joint (scenes/robotino has x, y, phi). -->\n";
  x += "    <text name=\"cosim.controller\" data=\"robotino_rose\"/>\n";
  x += "    <text name=\"cosim.internal_joints\" data=\"z\"/>\n";
  for (const Params::Entry& entry : params.entries()) {
    if (entry.key.starts_with("solver_") || entry.text) continue;  // IDA's settings: not this model's
    x += "    <numeric name=\"cosim.robotino." + entry.key + "\" data=\"" + num(entry.value) + "\"/>\n";
  }
  x += "  </custom>\n";
  x += "  <asset>\n    <mesh name=\"roller\" vertex=\"" + roller_vertices(params, options) + "\"/>\n  </asset>\n";
  x += "  <worldbody>\n";
  x += "    <geom name=\"floor\" type=\"plane\" size=\"10 10 0.1\" contype=\"1\" conaffinity=\"1\"/>\n";
  x += "    <body name=\"chassis\" pos=\"" + vec({0, 0, base_height_m}) + "\">\n";
  x += "      <joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>\n";
  x += "      <joint name=\"y\" type=\"slide\" axis=\"0 1 0\"/>\n";
  x += "      <joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>\n";
  x += "      <joint name=\"phi\" type=\"hinge\" axis=\"0 0 1\"/>\n";
  x += "      <inertial pos=\"0 0 0.1\" mass=\"" + vec({s.chassis_mass_kg}) + "\" diaginertia=\"" +
       vec({0.6 * s.chassis_yaw_kg_m2, 0.6 * s.chassis_yaw_kg_m2, s.chassis_yaw_kg_m2}) + "\"/>\n";
  x += "      <geom type=\"cylinder\" size=\"0.185 0.05\" pos=\"0 0 0.09\" contype=\"0\" conaffinity=\"0\" "
       "rgba=\"0.75 0.75 0.75 0.4\"/>\n";
  for (int i = 0; i < dynamics::robotino_common::kRobotinoWheelCount; ++i) {
    const double delta = dynamics::robotino_common::kRobotinoAxleOffset_rad[static_cast<std::size_t>(i)];
    const std::string wheel = "Wheel_" + std::to_string(i + 1);
    // Wheel frame: x along the outward axle x_i (the axle angle θ_i is about it), as the scene's.
    x += "      <body name=\"" + wheel + "\" pos=\"" +
         vec({big_r * std::cos(delta), big_r * std::sin(delta), base_height_m}) + "\" quat=\"" +
         axis_quat(2, delta) + "\">\n";
    x += "        <joint name=\"axle" + std::to_string(i + 1) + "\" type=\"hinge\" axis=\"1 0 0\" armature=\"" +
         vec({s.armature_kg_m2}) + "\"/>\n";
    x += "        <inertial pos=\"0 0 0\" mass=\"" + vec({s.hub_mass_kg}) + "\" diaginertia=\"" +
         vec({s.hub_axial_kg_m2, s.hub_transverse_kg_m2, s.hub_transverse_kg_m2}) + "\"/>\n";
    x += "        <geom type=\"cylinder\" size=\"0.018 0.012\" quat=\"" + axis_quat(1, pi / 2.0) +
         "\" contype=\"0\" conaffinity=\"0\" rgba=\"0.27 0.51 0.71 1\"/>\n";
    for (int j = 0; j < dynamics::robotino_common::kRobotinoRollersPerWheel; ++j) {
      // Roller j sits at α_j = j·60° about the axle; it touches the floor when θ_i + α_j = 0.
      const double alpha = j * dynamics::robotino_common::kRobotinoRollerPitch_rad;
      const double offset = (j % 2 == 0 ? 1.0 : -1.0) * options.roller_offset_m;
      const std::string roller = wheel + "/roller" + std::to_string(j + 1);
      x += "        <body name=\"" + roller + "\" pos=\"" +
           vec({offset, axle_to_roller * std::sin(alpha), -axle_to_roller * std::cos(alpha)}) + "\" quat=\"" +
           axis_quat(0, alpha) + "\">\n";
      x += "          <joint name=\"" + roller + "\" type=\"hinge\" axis=\"0 1 0\"/>\n";
      x += "          <inertial pos=\"0 0 0\" mass=\"" + vec({s.roller_mass_kg}) + "\" diaginertia=\"" +
           vec({s.roller_transverse_kg_m2, s.roller_axial_kg_m2, s.roller_transverse_kg_m2}) + "\"/>\n";
      x += "          <geom type=\"mesh\" mesh=\"roller\" contype=\"2\" conaffinity=\"1\" condim=\"3\" friction=\"" +
           num(options.friction) + " 0 0\" rgba=\"0.3 0.3 0.3 1\"/>\n";
      x += "        </body>\n";
    }
    x += "      </body>\n";
  }
  x += "    </body>\n  </worldbody>\n  <actuator>\n";
  for (int i = 1; i <= dynamics::robotino_common::kRobotinoWheelCount; ++i) {
    // Torque on the wheel about x_i [N·m]: the controller sets τ_i = kt·i_i/k_gear.
    x += "    <motor name=\"drive" + std::to_string(i) + "\" joint=\"axle" + std::to_string(i) + "\" gear=\"1\"/>\n";
  }
  x += "  </actuator>\n</mujoco>\n";
  return x;
}

}  // namespace cosim::robotino_mjcf
