#include "cosim/dynamics/kinematic/kinematic_backend.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"
#include "cosim/dynamics/reference/rose_params.hpp"

namespace cosim::dynamics::kinematic {
using reference::RoseParams;
using reference::RoseSample;
using reference::read_rose_params;
using reference::rose_param_specs;
using robotino_common::RobotinoGeometry;
using robotino_common::RollerContact;
using robotino_common::append_per_wheel_names;
using robotino_common::kRobotinoJointAxle1;
using robotino_common::kRobotinoJointPhi;
using robotino_common::kRobotinoJointX;
using robotino_common::kRobotinoJointY;
using robotino_common::kRobotinoRollerPitch_rad;
using robotino_common::kRobotinoRollersPerWheel;
using robotino_common::kRobotinoWheelCount;
using robotino_common::read_robotino_geometry;
using robotino_common::robotino_contact_sector;
using robotino_common::robotino_geometry_param_specs;
using robotino_common::robotino_joint_names;
using robotino_common::robotino_min_rolling_arm_m;
using robotino_common::robotino_roller_contact;
using robotino_common::robotino_roller_joint;
using robotino_common::robotino_rolling_arm_m;
using robotino_common::robotino_sector_roller;
using robotino_common::robotino_side_velocities;
using robotino_common::robotino_wheel_speeds;

namespace {

constexpr int kNodes = 5;
constexpr int kWheels = kRobotinoWheelCount;
// Contact switch times are located to this precision [s].
constexpr double kSwitchTolerance_s = 1e-14;

// 5-node Gauss–Legendre on [0, 1] plus, for dense output inside a substep, the monomial
// coefficients of the Lagrange basis through the nodes and of its integral from 0.
struct Gl5 {
  std::array<double, kNodes> node{};
  std::array<double, kNodes> weight{};
  std::array<std::array<double, kNodes>, kNodes> lagrange{};          // [j][p]: s^p in L_j(s)
  std::array<std::array<double, kNodes + 1>, kNodes> lagrange_int{};  // [j][p]: s^p in ∫₀ˢ L_j
};

Gl5 make_gl5() {
  // Nodes/weights on [−1, 1]: x = 0, ±(1/3)√(5 ∓ 2√(10/7)); w = 128/225, (322 ± 13√70)/900.
  const double x1 = std::sqrt(5.0 - 2.0 * std::sqrt(10.0 / 7.0)) / 3.0;
  const double x2 = std::sqrt(5.0 + 2.0 * std::sqrt(10.0 / 7.0)) / 3.0;
  const double w1 = (322.0 + 13.0 * std::sqrt(70.0)) / 900.0;
  const double w2 = (322.0 - 13.0 * std::sqrt(70.0)) / 900.0;
  const std::array<double, kNodes> x{-x2, -x1, 0.0, x1, x2};
  const std::array<double, kNodes> w{w2, w1, 128.0 / 225.0, w1, w2};
  Gl5 g;
  for (int j = 0; j < kNodes; ++j) {
    g.node[j] = 0.5 * (1.0 + x[j]);
    g.weight[j] = 0.5 * w[j];
  }
  for (int j = 0; j < kNodes; ++j) {
    // L_j(s) = Π_{m≠j} (s − c_m) / (c_j − c_m), expanded into monomials.
    std::array<double, kNodes> poly{};
    poly[0] = 1.0;
    int degree = 0;
    for (int m = 0; m < kNodes; ++m) {
      if (m == j) continue;
      const double scale = 1.0 / (g.node[j] - g.node[m]);
      for (int p = degree + 1; p >= 0; --p) {
        const double shifted = p > 0 ? poly[p - 1] : 0.0;
        const double kept = p <= degree ? poly[p] : 0.0;
        poly[p] = (shifted - g.node[m] * kept) * scale;
      }
      ++degree;
    }
    g.lagrange[j] = poly;
    for (int p = 0; p < kNodes; ++p) g.lagrange_int[j][p + 1] = poly[p] / (p + 1);
  }
  return g;
}

const Gl5& gl5() {
  static const Gl5 table = make_gl5();
  return table;
}

template <std::size_t N>
double horner(const std::array<double, N>& coeff, double s) {
  double value = coeff[N - 1];
  for (std::size_t p = N - 1; p-- > 0;) value = value * s + coeff[p];
  return value;
}

// One wheel over one substep t = ta + s·h, s ∈ [0, 1]: degree-4 interpolants of ω_i and v_ix
// through the Gauss nodes, and θ_i(s) = θ_i(ta) + h·∫₀ˢ ω_i (error O(h⁶), ~1e-15 rad here).
struct WheelSpan {
  double h_s = 0.0;
  double theta0_rad = 0.0;
  std::array<double, kNodes + 1> theta{};  // θ(s) − θ0 [rad]
  std::array<double, kNodes> omega{};      // ω(s) [rad/s]
  std::array<double, kNodes> v_side{};     // v_ix(s) [m/s]

  double theta_at(double s) const { return theta0_rad + horner(theta, s); }
  double omega_at(double s) const { return horner(omega, s); }
  double v_side_at(double s) const { return horner(v_side, s); }
};

// Adds ∫ v_ix / r_roll dt over s ∈ [sa, sb] (sector n throughout) to the contact roller.
void integrate_roller(const WheelSpan& w, const RobotinoGeometry& g, std::int64_t n, double sa,
                      double sb, std::span<double> rollers) {
  if (!(sb > sa)) return;
  const Gl5& gl = gl5();
  const double length = sb - sa;
  const double theta_n = static_cast<double>(n) * kRobotinoRollerPitch_rad;
  double sum = 0.0;
  for (int j = 0; j < kNodes; ++j) {
    const double s = sa + length * gl.node[j];
    const double r_roll = robotino_rolling_arm_m(g, w.theta_at(s) - theta_n);
    sum += gl.weight[j] * w.v_side_at(s) / r_roll;
  }
  rollers[static_cast<std::size_t>(robotino_sector_roller(n))] += sum * length * w.h_s;
}

// Integrates one wheel's contact roller over the substep, splitting at every contact switch.
void integrate_wheel(const WheelSpan& w, double theta_end_rad, std::span<const double, kNodes> omega_nodes,
                     const RobotinoGeometry& g, std::span<double> rollers) {
  const Gl5& gl = gl5();
  // Points where θ is known, with every extremum of θ (sign change of ω) inserted, so θ is
  // monotonic between neighbours and a sector change between them is one bracketed crossing.
  // Not resolved: two sign changes of ω between neighbouring points, i.e. a wheel reversing
  // twice within ~1.4 ms (node spacing at a 5 ms substep).
  constexpr int kMaxPoints = 2 * (kNodes + 2);
  std::array<double, kMaxPoints> s_pt{};
  std::array<double, kMaxPoints> theta_pt{};
  int count = 0;
  s_pt[count] = 0.0;
  theta_pt[count++] = w.theta0_rad;
  double s_prev = 0.0;
  double omega_prev = w.omega_at(0.0);
  for (int k = 0; k <= kNodes; ++k) {
    const double s_k = k < kNodes ? gl.node[k] : 1.0;
    const double omega_k = k < kNodes ? omega_nodes[k] : w.omega_at(1.0);
    if (omega_prev * omega_k < 0.0) {
      double lo = s_prev;
      double hi = s_k;
      for (int it = 0; it < 60 && (hi - lo) * w.h_s > kSwitchTolerance_s; ++it) {
        const double mid = 0.5 * (lo + hi);
        ((w.omega_at(mid) * omega_prev > 0.0) ? lo : hi) = mid;
      }
      s_pt[count] = 0.5 * (lo + hi);
      theta_pt[count] = w.theta_at(s_pt[count]);
      ++count;
    }
    s_pt[count] = s_k;
    theta_pt[count++] = k < kNodes ? w.theta_at(s_k) : theta_end_rad;
    s_prev = s_k;
    omega_prev = omega_k;
  }

  // Walk the points; at each sector change, bisect for the switch and close the interval.
  std::int64_t n = robotino_contact_sector(w.theta0_rad);
  double s_from = 0.0;
  for (int k = 1; k < count; ++k) {
    const std::int64_t n_k = robotino_contact_sector(theta_pt[k]);
    double lo = s_pt[k - 1];
    while (n_k != n) {
      const std::int64_t dir = n_k > n ? 1 : -1;
      const auto passed = [&](double s) {
        const std::int64_t n_s = robotino_contact_sector(w.theta_at(s));
        return dir > 0 ? n_s > n : n_s < n;
      };
      double hi = s_pt[k];
      for (int it = 0; it < 80 && (hi - lo) * w.h_s > kSwitchTolerance_s; ++it) {
        const double mid = 0.5 * (lo + hi);
        (passed(mid) ? hi : lo) = mid;
      }
      const double s_switch = 0.5 * (lo + hi);
      integrate_roller(w, g, n, s_from, s_switch, rollers);
      n += dir;
      s_from = s_switch;
      lo = s_switch;
    }
  }
  integrate_roller(w, g, n, s_from, 1.0, rollers);
}

}  // namespace

std::span<const ParamSpec> kinematic_param_specs() {
  static const std::vector<ParamSpec> specs =
      concat_param_specs({robotino_geometry_param_specs(), rose_param_specs()});
  return specs;
}

std::unique_ptr<Backend> make_kinematic_backend(const Params& params, double t0_s) {
  const RobotinoGeometry geometry = read_robotino_geometry(params, "kinematic");
  return std::make_unique<KinematicBackend>(geometry, read_rose_params(params), t0_s);
}

namespace {

std::vector<std::string> kinematic_output_names() {
  std::vector<std::string> names{"x_ref_m",        "y_ref_m",        "phi_ref_rad",
                                 "vx_ref_m_per_s", "vy_ref_m_per_s", "omega_ref_rad_per_s"};
  append_per_wheel_names(names, "omega", "_rad_per_s");
  append_per_wheel_names(names, "contact", "");
  append_per_wheel_names(names, "v_side", "_m_per_s");
  append_per_wheel_names(names, "r_roll", "_m");
  append_per_wheel_names(names, "omega_roll", "_rad_per_s");
  return names;
}

}  // namespace

KinematicBackend::KinematicBackend(const RobotinoGeometry& geometry, const RoseParams& rose,
                                   double t0_s)
    : Backend("kinematic", "Robotino", robotino_joint_names(), kinematic_output_names(), t0_s),
      geometry_(geometry),
      rose_(rose) {
  if (!(geometry.wheel_radius_m > 0.0) || !(geometry.wheel_distance_m > 0.0) ||
      !(robotino_min_rolling_arm_m(geometry) > 0.0)) {
    throw std::invalid_argument(
        "kinematic backend: need wheel_radius_m > 0, wheel_distance_m > 0 and a positive rolling "
        "arm at theta_b = 30 deg (roller_max_radius_m > wheel_radius_m * (1 - cos 30 deg))");
  }
  (void)gl5();  // build the quadrature table here, not on the first frame
  std::span<double> q = mutable_joint_values();
  const RoseSample s = rose_.at(t0_s);
  q[kRobotinoJointX] = s.x_m;
  q[kRobotinoJointY] = s.y_m;
  q[kRobotinoJointPhi] = s.phi_rad;
  write_outputs(t0_s, q, mutable_outputs());
}

void KinematicBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  // Equal substeps of at most kMaxSubstep_s; the tolerance keeps 0.05 s at exactly 10 substeps.
  const double t_from_s = time_s();
  const double span_s = t_s - t_from_s;
  const double substeps = std::max(1.0, std::ceil(span_s / kMaxSubstep_s - 1e-9));
  if (substeps > 1e12) {
    throw BackendError("backend kinematic: advancing " + format_number(span_s) +
                       " s at once needs more than 1e12 substeps");
  }
  const auto n = static_cast<std::int64_t>(substeps);
  const double h_s = span_s / substeps;
  for (std::int64_t k = 0; k < n; ++k) {
    const double ta_s = t_from_s + static_cast<double>(k) * h_s;
    const double tb_s = k + 1 == n ? t_s : t_from_s + static_cast<double>(k + 1) * h_s;
    substep(ta_s, tb_s, q);
  }
  const RoseSample s = rose_.at(t_s);
  q[kRobotinoJointX] = s.x_m;
  q[kRobotinoJointY] = s.y_m;
  q[kRobotinoJointPhi] = s.phi_rad;
  write_outputs(t_s, q, outputs);
}

void KinematicBackend::substep(double ta_s, double tb_s, std::span<double> q) const {
  const Gl5& gl = gl5();
  const double h_s = tb_s - ta_s;
  // IK wheel speeds and side velocities at the Gauss nodes; the integrands depend on t only.
  std::array<std::array<double, kNodes>, kWheels> omega{};
  std::array<std::array<double, kNodes>, kWheels> v_side{};
  for (int j = 0; j < kNodes; ++j) {
    const RoseSample s = rose_.at(ta_s + gl.node[j] * h_s);
    const Eigen::Vector3d w =
        robotino_wheel_speeds(geometry_, s.phi_rad, {s.vx_m_per_s, s.vy_m_per_s, s.omega_rad_per_s});
    const Eigen::Vector3d v = robotino_side_velocities(s.phi_rad, s.vx_m_per_s, s.vy_m_per_s);
    for (int i = 0; i < kWheels; ++i) {
      omega[i][j] = w(i);
      v_side[i][j] = v(i);
    }
  }
  for (int i = 0; i < kWheels; ++i) {
    WheelSpan span;
    span.h_s = h_s;
    span.theta0_rad = q[kRobotinoJointAxle1 + static_cast<std::size_t>(i)];
    double increment = 0.0;
    for (int j = 0; j < kNodes; ++j) {
      increment += gl.weight[j] * omega[i][j];
      for (int p = 0; p < kNodes; ++p) {
        span.omega[p] += gl.lagrange[j][p] * omega[i][j];
        span.v_side[p] += gl.lagrange[j][p] * v_side[i][j];
        span.theta[p + 1] += h_s * gl.lagrange_int[j][p + 1] * omega[i][j];
      }
    }
    const double theta_end = span.theta0_rad + h_s * increment;
    integrate_wheel(span, theta_end, omega[i], geometry_,
                    q.subspan(robotino_roller_joint(i, 0), kRobotinoRollersPerWheel));
    q[kRobotinoJointAxle1 + static_cast<std::size_t>(i)] = theta_end;
  }
}

void KinematicBackend::write_outputs(double t_s, std::span<const double> q,
                                     std::span<double> outputs) const {
  namespace out = kinematic_output;
  const RoseSample s = rose_.at(t_s);
  outputs[out::kXRef] = s.x_m;
  outputs[out::kYRef] = s.y_m;
  outputs[out::kPhiRef] = s.phi_rad;
  outputs[out::kVxRef] = s.vx_m_per_s;
  outputs[out::kVyRef] = s.vy_m_per_s;
  outputs[out::kOmegaRef] = s.omega_rad_per_s;
  const Eigen::Vector3d w =
      robotino_wheel_speeds(geometry_, s.phi_rad, {s.vx_m_per_s, s.vy_m_per_s, s.omega_rad_per_s});
  const Eigen::Vector3d v = robotino_side_velocities(s.phi_rad, s.vx_m_per_s, s.vy_m_per_s);
  for (std::size_t i = 0; i < static_cast<std::size_t>(kWheels); ++i) {
    const RollerContact contact = robotino_roller_contact(q[kRobotinoJointAxle1 + i]);
    const double r_roll = robotino_rolling_arm_m(geometry_, contact.theta_b_rad);
    const auto ii = static_cast<Eigen::Index>(i);
    outputs[out::kOmega1 + i] = w(ii);
    outputs[out::kContact1 + i] = contact.roller + 1;
    outputs[out::kSideVelocity1 + i] = v(ii);
    outputs[out::kRollingArm1 + i] = r_roll;
    outputs[out::kRollerSpeed1 + i] = v(ii) / r_roll;
  }
}

}  // namespace cosim::dynamics::kinematic
