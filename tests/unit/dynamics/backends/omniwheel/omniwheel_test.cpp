// The omniwheel backend (seed 004, spec seeds_002_004 §C.4) against geometry identities, an
// independent formulation and the invariants: the two contact trackers and the paper's §5.1
// construction give one point; the roller's length and its tips; Lagrange's equations (written
// here from the kinetic energy alone, by finite differences) against Kane's at ψ = 0; N = M·g;
// energy never increases; pure rolling stays pure rolling; the servo torque's sawtooth; mirror
// symmetry in ψ; the explicit and implicit runs agree to the paper's orders.
#include "cosim/dynamics/omniwheel/omniwheel_backend.hpp"
#include "cosim/dynamics/format_number.hpp"
#include "sanitized_build.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace cosim::dynamics::omniwheel {
namespace {

using omniwheel::Vector3;
using omniwheel::WheelGeometry;
using omniwheel::WheelPose;
namespace out = omniwheel_output;

std::unique_ptr<OmniWheelBackend> make(const std::vector<std::string>& overrides = {}) {
  auto backend = make_omniwheel_backend(Params::resolve("omniwheel", omniwheel_param_specs(), nullptr, overrides), 0.0);
  return std::unique_ptr<OmniWheelBackend>(static_cast<OmniWheelBackend*>(backend.release()));
}

double out_of(const Backend& b, std::size_t i) { return b.outputs()[i]; }

WheelPose random_pose(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double chi = 3.0 * u(rng);
  return {Vector3(u(rng), u(rng), 0.05), Vector3(std::cos(chi), std::sin(chi), 0.0),
          Vector3(-std::sin(chi), std::cos(chi), 0.0)};
}

TEST(OmniWheelGeometry, ExplicitImplicitAndThePapersConstructionGiveOnePoint) {
  std::mt19937_64 rng(4);
  for (const int n : {4, 6, 8}) {
    for (const double psi_deg : {0.0, 30.0, 45.0, -30.0}) {
      WheelGeometry g;
      g.rollers = n;
      g.psi_rad = psi_deg * std::numbers::pi / 180.0;
      const double alpha = g.half_span_rad();
      for (int k = 0; k < 200; ++k) {
        const WheelPose w = random_pose(rng);
        // Contact angles over the whole span, up to 1e-9 rad from the tips.
        const double q = (1.0 - 1e-9) * alpha * std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
        const auto e = omniwheel::explicit_contact(g, w, q);
        const auto i = omniwheel::implicit_contact(g, w, q);
        const auto p = omniwheel::paper_implicit_formula(g, w, q);
        ASSERT_LE((i.point - e.point).norm(), 1e-12) << n << " " << psi_deg << " q " << q;
        ASSERT_LE((p.point - e.point).norm(), 1e-15) << n << " " << psi_deg;
        ASSERT_NEAR(e.point.z(), 0.0, 1e-15) << "the contact is on the floor";
        ASSERT_NEAR(i.meridian_q_rad, q, 1e-9);
      }
    }
  }
}

TEST(OmniWheelGeometry, RollersArePointedSpindlesOfThePapersLength) {
  for (const double psi_deg : {0.0, 30.0, 60.0}) {
    WheelGeometry g;
    g.psi_rad = psi_deg * std::numbers::pi / 180.0;
    const double alpha = g.half_span_rad();
    // s(±α) = ±L/2 = ±R·sin α/cos ψ (paper §5.2), r(±α) = 0 (ideal switching: both tips on the
    // floor at a switch, P4), r(0) = R − R₁.
    EXPECT_NEAR(omniwheel::meridian(g, alpha).s, 0.5 * g.roller_length_m(), 1e-15) << psi_deg;
    EXPECT_NEAR(omniwheel::meridian(g, -alpha).s, -0.5 * g.roller_length_m(), 1e-15) << psi_deg;
    EXPECT_NEAR(omniwheel::meridian(g, alpha * (1 - 1e-12)).r, 0.0, 1e-12) << psi_deg;
    EXPECT_NEAR(omniwheel::meridian(g, 0.0).r, g.radius_m - g.roller_offset_m(), 1e-15) << psi_deg;
  }
}

// Lagrange's equations for ψ = 0 from T(q, u) alone: T is the sum of the bodies' kinetic
// energies written out here (hub: ½m|v_O|² + ½ω·Iω; roller j: ½m|v_Bj|² + ½ω_j·I_jω_j), M and
// ∂T/∂q by central differences; friction through its virtual power at the contact point.
// Vectors and matrices of at most 4 + 4 coordinates, on the stack.
using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 8, 1>;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 8, 8>;

struct Lagrange {
  omniwheel::ModelParams p;
  double kinetic(const Vec& q, const Vec& u) const {
    const int n = p.geometry.rollers;
    const double chi = q[2], phi = q[3];
    const Eigen::Vector3d ef(std::cos(chi), std::sin(chi), 0), a(-std::sin(chi), std::cos(chi), 0), ez(0, 0, 1);
    const Eigen::Vector3d v_o(u[0], u[1], 0);
    const Eigen::Vector3d w = u[2] * ez + u[3] * a;
    const auto inertia = [](double tr, double ax, const Eigen::Vector3d& k) {
      return Eigen::Matrix3d(tr * Eigen::Matrix3d::Identity() + (ax - tr) * k * k.transpose());
    };
    double t = 0.5 * p.hub_mass_kg * v_o.squaredNorm() +
               0.5 * w.dot(inertia(p.hub_transverse_inertia(), p.hub_axle_inertia(), a) * w);
    const double r1 = p.geometry.roller_offset_m();
    for (int j = 0; j < n; ++j) {
      const double z = phi + 2 * std::numbers::pi * j / n;
      const Eigen::Vector3d d = -r1 * (std::cos(z) * ez + std::sin(z) * ef);
      const Eigen::Vector3d axis = std::cos(z) * ef - std::sin(z) * ez;  // ψ = 0
      const Eigen::Vector3d v = v_o + w.cross(d);
      const Eigen::Vector3d wj = w + u[4 + j] * axis;
      t += 0.5 * p.roller_mass_kg * v.squaredNorm() +
           0.5 * wj.dot(inertia(p.roller_transverse_inertia(), p.roller_axis_inertia(), axis) * wj);
    }
    return t;
  }
  // T is quadratic in u: M by polarisation, exact to rounding.
  Mat mass(const Vec& q) const {
    const auto dof = q.size();
    Mat m(dof, dof);
    const auto e = [&](Eigen::Index i) { return Vec(Vec::Unit(dof, i)); };
    for (Eigen::Index i = 0; i < dof; ++i) {
      m(i, i) = 2 * kinetic(q, e(i));
      for (Eigen::Index j = 0; j < i; ++j) m(i, j) = m(j, i) = kinetic(q, e(i) + e(j)) - kinetic(q, e(i)) - kinetic(q, e(j));
    }
    return m;
  }
  // ∂T/∂u = M·u, exactly from T(u + e_i) − T(u − e_i) = 2·(M u)_i (T is quadratic in u).
  Vec momentum(const Vec& q, const Vec& u) const {
    Vec out(q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) {
      const Vec e = Vec::Unit(q.size(), i);
      out[i] = 0.5 * (kinetic(q, u + e) - kinetic(q, u - e));
    }
    return out;
  }
  // u̇ from d/dt(∂T/∂u) − ∂T/∂q = Q: M·u̇ = Q + ∂T/∂q − (dM/dt)·u, the q-derivatives by central
  // differences of T and M (h = 1e-6: truncation ~1e-12, rounding ~1e-10 of the terms).
  Vec accel(const Vec& q, const Vec& u) const {
    const auto dof = q.size();
    const double h = 1e-6;
    Vec dtdq(dof);
    for (Eigen::Index i = 0; i < dof; ++i) {
      Vec qp = q, qm = q;
      qp[i] += h;
      qm[i] -= h;
      dtdq[i] = (kinetic(qp, u) - kinetic(qm, u)) / (2 * h);
    }
    const Vec mdot_u = (momentum(q + h * u, u) - momentum(q - h * u, u)) / (2 * h);
    const Mat m = mass(q);
    // Friction at P = O − R·e_z (ψ = 0): its velocity v_O + ω_w × (P − O) + β̇_k·i2_k × (P − O_Bk).
    const int n = p.geometry.rollers;
    const double chi = q[2], phi = q[3];
    const Eigen::Vector3d ef(std::cos(chi), std::sin(chi), 0), a(-std::sin(chi), std::cos(chi), 0), ez(0, 0, 1);
    const double pitch = 2 * std::numbers::pi / n;
    const auto sector = std::llround(phi / pitch);
    const int k = static_cast<int>(((-sector) % n + n) % n);
    const double qc = phi - static_cast<double>(sector) * pitch;
    const double r1 = p.geometry.roller_offset_m(), big_r = p.geometry.radius_m;
    const Eigen::Vector3d lever = -big_r * ez;
    const Eigen::Vector3d ob = -r1 * (std::cos(qc) * ez + std::sin(qc) * ef);
    const Eigen::Vector3d axis = std::cos(qc) * ef - std::sin(qc) * ez;
    Mat vp = Mat::Zero(3, dof);
    vp.col(0) = Eigen::Vector3d::UnitX();
    vp.col(1) = Eigen::Vector3d::UnitY();
    vp.col(2) = ez.cross(lever);
    vp.col(3) = a.cross(lever);
    vp.col(4 + k) = axis.cross(lever - ob);
    const Eigen::Vector3d slip = vp * u;
    const double normal = p.total_mass_kg() * p.gravity_m_per_s2;
    const double eps = p.friction_v_eps_m_per_s;
    const Eigen::Vector3d ft = -p.friction_mu * normal * slip / std::sqrt(slip.squaredNorm() + eps * eps);
    return m.ldlt().solve(vp.transpose() * ft + dtdq - mdot_u);
  }
};

TEST(OmniWheelBackend, KaneAndLagrangeGiveTheSameTrajectoryAtPsiZero) {
  // Lagrange by RK4 at 1e-5 s over 0.21 s (2 roller switches) against the backend (Kane, IDA at
  // rtol 1e-10). Bound: the RK4 error (h⁴ terms, ~1e-10) plus the finite-difference M and ∂T/∂q
  // (relative ~1e-9 of accelerations of ~10 m/s²) integrated: 1e-8 m and rad.
  auto b = make({"roller_inclination_rad=0", "solver_rtol=1e-11", "solver_atol_position=1e-13", "solver_atol_speed=1e-11"});
  Lagrange l{b->model().params()};
  const int dof = 8;
  Vec q = Vec::Zero(dof), u = Vec::Zero(dof);
  u << 1.0, 0.3, 0.5, 0.0, 0, 0, 0, 0;
  const double h = 1e-5;
  // 0.21 s, two roller switches; under the sanitizers 0.11 s, one (sanitized_build.hpp).
  const int steps = test::kSanitizedBuild ? 11000 : 21000;
  for (int step = 1; step <= steps; ++step) {
    const Vec k1q = u, k1u = l.accel(q, u);
    const Vec k2q = u + 0.5 * h * k1u, k2u = l.accel(q + 0.5 * h * k1q, k2q);
    const Vec k3q = u + 0.5 * h * k2u, k3u = l.accel(q + 0.5 * h * k2q, k3q);
    const Vec k4q = u + h * k3u, k4u = l.accel(q + h * k3q, k4q);
    q += h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    u += h / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
    if (step % 1000 == 0) {
      b->advance_to(step * h);
      for (int j = 0; j < 4; ++j) ASSERT_NEAR(b->joint_values()[static_cast<std::size_t>(j)], q[j], 1e-8) << j << " t " << step * h;
    }
  }
  EXPECT_GE(b->switch_count(), test::kSanitizedBuild ? 1 : 2);
}

TEST(OmniWheelBackend, NormalForceIsTheWeightAndTheMomentBalanceCloses) {
  for (const char* psi : {"roller_inclination_rad=0", "roller_inclination_rad=0.5235987755982988"}) {
    auto b = make({psi});
    const double weight = b->model().params().total_mass_kg() * b->model().params().gravity_m_per_s2;
    for (int k = 1; k <= 400; ++k) {
      b->advance_to(k * 0.005);
      ASSERT_NEAR(out_of(*b, out::kNormal), weight, 1e-15);
      // Σ m_b·(a_b,z + g) from the accelerations: the centre of mass stays at height R.
      ASSERT_NEAR(out_of(*b, out::kNormalCheck), weight, 1e-9 * weight) << psi;
      ASSERT_LE(std::abs(out_of(*b, out::kResidualZ)), 1e-12) << psi;
    }
  }
}

TEST(OmniWheelBackend, EnergyNeverIncreasesAndTheBalanceCloses) {
  const int samples = test::kSanitizedBuild ? 400 : 2000;  // 10 s; 2 s under the sanitizers (sanitized_build.hpp)
  for (const char* psi : {"roller_inclination_rad=0", "roller_inclination_rad=0.5235987755982988"}) {
    auto b = make({psi});
    double last = out_of(*b, out::kEnergyStored);
    for (int k = 1; k <= samples; ++k) {
      b->advance_to(k * 0.005);
      const double e = out_of(*b, out::kEnergyStored);
      ASSERT_LE(e, last + 1e-9) << psi << " t " << k * 0.005;  // rtol 1e-8 of ~0.3 J
      last = e;
      ASSERT_LE(std::abs(out_of(*b, out::kEnergyBalance)), 1e-6) << psi;
    }
    // Friction dissipates: > 0.1 J over the 10 s (Release), something over the sanitizers' 2 s.
    EXPECT_GT(out_of(*b, out::kEnergyRes), test::kSanitizedBuild ? 0.0 : 0.1) << "friction dissipated";
  }
}

TEST(OmniWheelBackend, PureRollingStaysPureRollingWithTheSawtoothServoTorque) {
  // Ẋ·e_x = R·φ̇·e_f (e_f = e_x; φ̇ > 0 turns the bottom point backwards), no yaw, no roller
  // spin: v_P = 0 for every ψ (P9); λ = −N·R₁·tan ψ·tan q_c (spec C.2.5).
  auto b = make({"vx0_m_per_s=0.5", "vy0_m_per_s=0", "yaw_rate0_rad_per_s=0", "spin_rate0_rad_per_s=10"});
  const auto& p = b->model().params();
  const double e0 = out_of(*b, out::kEnergyStored);
  const double n_r1_tanpsi = p.total_mass_kg() * p.gravity_m_per_s2 * p.geometry.roller_offset_m() * std::tan(p.geometry.psi_rad);
  for (int k = 1; k <= 200; ++k) {
    b->advance_to(k * 0.005);
    ASSERT_LE(out_of(*b, out::kSlip), 1e-9);
    ASSERT_NEAR(out_of(*b, out::kEnergyStored), e0, 1e-9);
    const double qc = out_of(*b, out::kContactAngle);
    // Exact up to the integrator: speeds to 1e-8 (atol) move the inertial terms by ~1e-9 N·m.
    ASSERT_NEAR(out_of(*b, out::kServoTorque), -n_r1_tanpsi * std::tan(qc), 1e-8) << k;
  }
  EXPECT_GE(b->switch_count(), 5);
}

TEST(OmniWheelBackend, MirrorSymmetryInPsi) {
  // ψ → −ψ with Ẏ → −Ẏ and χ̇ → −χ̇ mirrors the run in the x-z plane: X, φ the same, Y and χ flip.
  auto a = make({"roller_inclination_rad=0.5235987755982988"});
  auto m = make({"roller_inclination_rad=-0.5235987755982988", "vy0_m_per_s=-0.3", "yaw_rate0_rad_per_s=-0.5"});
  for (int k = 1; k <= 400; ++k) {
    a->advance_to(k * 0.005);
    m->advance_to(k * 0.005);
    ASSERT_NEAR(a->joint_values()[0], m->joint_values()[0], 1e-8);
    ASSERT_NEAR(a->joint_values()[1], -m->joint_values()[1], 1e-8);
    ASSERT_NEAR(a->joint_values()[2], -m->joint_values()[2], 1e-8);
    ASSERT_NEAR(a->joint_values()[3], m->joint_values()[3], 1e-8);
  }
}

TEST(OmniWheelBackend, RollerOnesCentreMovesOnItsCircleAboutTheAxle) {
  // O stays at height R, so roller 1's centre is at z = R − R₁·cos φ (the paper's Fig. 10).
  auto b = make();
  const double r1 = b->model().params().geometry.roller_offset_m();
  for (int k = 1; k <= 400; ++k) {
    b->advance_to(k * 0.005);
    ASSERT_NEAR(out_of(*b, out::kRoller1Z), 0.05 - r1 * std::cos(b->joint_values()[3]), 1e-15);
  }
}

TEST(OmniWheelBackend, TheContactJointPlacesThePointOnTheFloor) {
  // The scene's `contact` joint slides along the axle in the yaw frame by μ_ax: its origin is
  // then P = (X, Y, 0) + μ_ax·a, the contact point the outputs give.
  auto b = make();
  const std::size_t contact = static_cast<std::size_t>(b->model().dof());
  ASSERT_EQ(b->joint_names().size(), contact + 1);
  EXPECT_EQ(b->joint_names()[contact], "OmniWheel/contact");
  for (int k = 1; k <= 400; ++k) {
    b->advance_to(k * 0.005);
    const auto q = b->joint_values();
    ASSERT_EQ(q[contact], out_of(*b, out::kAxialOffset));
    ASSERT_NEAR(q[0] - q[contact] * std::sin(q[2]), out_of(*b, out::kPx), 1e-15);
    ASSERT_NEAR(q[1] + q[contact] * std::cos(q[2]), out_of(*b, out::kPy), 1e-15);
  }
}

TEST(OmniWheelBackend, BothTrackersGiveOneFieldAlongTheScenario) {
  // The trackers compared on the same states (the explicit run's samples, ψ = 0 and 30°), so that
  // the integrator is out of the comparison: accelerations, roller 1's vertical acceleration
  // (the paper's Fig. 9 quantity), friction and servo torque.
  // Under the sanitizers the first 2 s (sanitized_build.hpp): roller switches and both contact
  // kinds come within it; the 10 s run is Release's.
  const int samples = test::kSanitizedBuild ? 400 : 2000;
  for (const char* psi : {"roller_inclination_rad=0", "roller_inclination_rad=0.5235987755982988"}) {
    auto run = make({psi});
    omniwheel::ModelParams implicit_params = run->model().params();
    implicit_params.tracking = omniwheel::Tracking::kImplicit;
    const omniwheel::OmniWheelModel implicit_model(implicit_params);
    const auto dof = static_cast<std::size_t>(run->model().dof());
    double du = 0, da = 0, df = 0, dl = 0;
    omniwheel::Evaluation e, i;
    for (int k = 1; k <= samples; ++k) {
      run->advance_to(k * 0.005);
      const auto y = run->state();
      const auto q = y.first(dof), u = y.subspan(dof, dof);
      if (const auto other = run->edge_contact()) {
        run->model().evaluate_edge(q, u, run->contact(), *other, e);
        implicit_model.evaluate_edge(q, u, run->contact(), *other, i);
      } else {
        run->model().evaluate(q, u, run->contact().roller, run->contact().contact_angle_rad, e);
        implicit_model.evaluate(q, u, run->contact().roller, run->contact().contact_angle_rad, i);
      }
      du = std::max(du, (e.u_dot - i.u_dot).cwiseAbs().maxCoeff() / std::max(1.0, e.u_dot.cwiseAbs().maxCoeff()));
      da = std::max(da, std::abs(e.roller1_az_m_per_s2 - i.roller1_az_m_per_s2));
      df = std::max(df, (e.friction_N - i.friction_N).norm());
      dl = std::max(dl, std::abs(e.servo_torque_N_m - i.servo_torque_N_m));
    }
    const std::string label = std::string(psi).ends_with("=0") ? "field_psi0_" : "field_psi30_";
    RecordProperty(label + "daz", format_number(da));
    RecordProperty(label + "dft_N", format_number(df));
    RecordProperty(label + "dservo_N_m", format_number(dl));
    RecordProperty(label + "du_relative", format_number(du));
    // The points agree to ~1e-15 m, but the roller in contact spins at v_lateral/r, fast near
    // its tips, and the friction law turns 1e-13 m/s of slip into 1e-10 N: so ~1e-10 in
    // forces and accelerations, ~1e-7 relative in the rollers' own accelerations.
    EXPECT_LE(da, 1e-8) << psi << ": the paper's acceleration order";
    EXPECT_LE(df, 1e-8) << psi;
    EXPECT_LE(dl, 1e-9) << psi;
    EXPECT_LE(du, 1e-6) << psi;
  }
}

// Roller 1's centre, vertical (the paper's Figs. 8-10), over [0, t_end] of two runs.
struct Divergence {
  double z_m = 0, vz_m_per_s = 0, az_m_per_s2 = 0;
};
Divergence diverge(const std::vector<std::string>& a, const std::vector<std::string>& b, double t_end_s) {
  auto ra = make(a), rb = make(b);
  Divergence d;
  for (int k = 1; k * 0.005 <= t_end_s + 1e-9; ++k) {
    ra->advance_to(k * 0.005);
    rb->advance_to(k * 0.005);
    d.z_m = std::max(d.z_m, std::abs(out_of(*ra, out::kRoller1Z) - out_of(*rb, out::kRoller1Z)));
    d.vz_m_per_s = std::max(d.vz_m_per_s, std::abs(out_of(*ra, out::kRoller1Vz) - out_of(*rb, out::kRoller1Vz)));
    d.az_m_per_s2 = std::max(d.az_m_per_s2, std::abs(out_of(*ra, out::kRoller1Az) - out_of(*rb, out::kRoller1Az)));
  }
  return d;
}

TEST(OmniWheelBackend, ExplicitAndImplicitRunsDivergeOnlyAsTheIntegratorDoes) {
  // Seed 004 Figs. 8-10: roller 1's centre, vertical, diverges by ~1e-6 (position), ~1e-7
  // (velocity), ~1e-8 (acceleration) over 10 s between the two algorithms. Here the two fields
  // agree to ~1e-10 (BothTrackersGiveOneFieldAlongTheScenario), so two runs differ by the
  // integrator's own errors, amplified by a model that is very sensitive: a stiff friction law
  // (μN/v_ε ≈ 1100 N·s/m against rollers of ~1e-6 kg·m²) and, for ψ = 30°, a rocking across a
  // roller edge near 5.05 s that ends on two roller tips. Hence tolerances 1e-12 (the divergence
  // scales with them: at the default 1e-8 it is ~1e-5 m), and the acceleration measured against
  // the model's own sensitivity to a 1e-12 m/s change of the initial speed (MODEL.md §5 has the
  // table).
  const std::vector<std::string> tight{"solver_rtol=1e-12", "solver_atol_position=1e-14", "solver_atol_speed=1e-12"};
  const auto with = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> v = tight;
    v.insert(v.end(), extra);
    return v;
  };
  const std::string psi0 = "roller_inclination_rad=0", psi30 = "roller_inclination_rad=0.5235987755982988";
  // Under the sanitizers 1 s and 0.5 s (sanitized_build.hpp): ψ = 30° then ends before the wheel
  // rocks onto the tips near 5.05 s, which the Release run covers.
  const bool full = !test::kSanitizedBuild;
  for (const auto& [psi, t_end_s] : {std::pair{psi0, full ? 10.0 : 1.0}, std::pair{psi30, full ? 10.0 : 0.5}}) {
    const Divergence trackers = diverge(with({psi, "contact_tracking=explicit"}), with({psi, "contact_tracking=implicit"}), t_end_s);
    const Divergence perturbed = diverge(with({psi}), with({psi, "vx0_m_per_s=1.000000000001"}), t_end_s);
    const std::string label = psi == psi0 ? "runs_psi0_" : "runs_psi30_";
    RecordProperty(label + "dz_m", format_number(trackers.z_m));
    RecordProperty(label + "dvz_m_per_s", format_number(trackers.vz_m_per_s));
    RecordProperty(label + "daz_m_per_s2", format_number(trackers.az_m_per_s2));
    // Each quantity within the paper's order or ten times what a 1e-12 m/s perturbation does to
    // one tracker's run, whichever is larger. The acceleration follows the slip through the
    // friction law (1e-13 m/s moves it by ~1e-6 m/s²), so no run pair stays within 1e-8 there;
    // at ψ = 30° the velocity is at the paper's 1e-7 up to 5 s (6e-8 here, 1.0e-7 with MinGW's
    // sin/cos) and 2.3e-7 over 10 s, as the perturbed pair's.
    EXPECT_LE(trackers.z_m, std::max(1e-6, 10.0 * perturbed.z_m)) << psi << " perturbed " << perturbed.z_m;
    EXPECT_LE(trackers.vz_m_per_s, std::max(1e-7, 10.0 * perturbed.vz_m_per_s))
        << psi << " perturbed " << perturbed.vz_m_per_s;
    EXPECT_LE(trackers.az_m_per_s2, std::max(1e-8, 10.0 * perturbed.az_m_per_s2))
        << psi << " perturbed " << perturbed.az_m_per_s2;
    if (psi == psi0) {  // no rocking: the paper's orders for position and velocity as they are
      EXPECT_LE(trackers.z_m, 1e-6);
      EXPECT_LE(trackers.vz_m_per_s, 1e-7);
    }
  }
}

// Where a run of the scenario (ψ = 30°) ends, and when it came to stand on both roller tips.
struct EndState {
  double x_m = 0, y_m = 0, yaw_rad = 0;
  double edge_from_s = -1;  // first 5 ms sample on both tips; -1: never
  bool on_edge = false;
};
EndState run_to(const std::vector<std::string>& overrides, double t_end_s) {
  auto b = make(overrides);
  EndState e;
  for (int k = 1; k * 0.005 <= t_end_s + 1e-9; ++k) {
    b->advance_to(k * 0.005);
    if (e.edge_from_s < 0 && out_of(*b, out::kOnEdge) != 0.0) e.edge_from_s = k * 0.005;
  }
  e.x_m = b->joint_values()[0];
  e.y_m = b->joint_values()[1];
  e.yaw_rad = b->joint_values()[2];
  e.on_edge = out_of(*b, out::kOnEdge) != 0.0;
  return e;
}

TEST(OmniWheelBackend, TheDefaultRunEndsOnTheConvergedBranch) {
  // At ψ = 30° the wheel rocks across the edge between two rollers near 5.05 s and comes to
  // stand on both tips at 5.08 s (MODEL.md §4). Whether it stood there or rocked off once
  // depended on the tolerances (a 1e-9 rad switch band pumped the rocking, issue 27): a default
  // run must end on the branch of a converged one, near its end state.
  // Release only: 0.7 s here, 15–35× that under the sanitizers (almost all of it the rocking
  // before 5.1 s), and the same paths (the rocking, the edge entry, the tips to 10 s) run there in
  // EnergyNeverIncreasesAndTheBalanceCloses; a branch is a matter of numbers, not of memory.
  if (test::kSanitizedBuild) GTEST_SKIP() << "Release only (sanitized_build.hpp)";
  // The reference: rtol 1e-11 (atol 1e-13 m and rad, 1e-11 m/s), whose end pose is within
  // 2e-6 m and 1.2e-4 rad of rtol 1e-12 and 1e-13.
  const double t_end_s = 10.0;
  const EndState ref = run_to({"solver_rtol=1e-11", "solver_atol_position=1e-13", "solver_atol_speed=1e-11"}, t_end_s);
  ASSERT_TRUE(ref.on_edge) << "the converged run stands on both tips";
  EXPECT_NEAR(ref.edge_from_s, 5.08, 0.011);
  // The default tolerances (rtol 1e-8, atol 1e-10 m and rad, 1e-8 m/s) and a factor 3 either
  // side of them, so that no lucky value passes.
  const std::vector<std::vector<std::string>> runs{
      {},
      {"solver_rtol=3e-8", "solver_atol_position=3e-10", "solver_atol_speed=3e-8"},
      {"solver_rtol=3e-9", "solver_atol_position=3e-11", "solver_atol_speed=3e-9"}};
  for (const auto& overrides : runs) {
    const std::string label = overrides.empty() ? "default" : overrides.front();
    const EndState e = run_to(overrides, t_end_s);
    EXPECT_TRUE(e.on_edge) << label;
    EXPECT_NEAR(e.edge_from_s, ref.edge_from_s, 0.011) << label;
    // Measured at 10 s: the default 0.6 mm, 1.6 mm, 0.072 rad from the reference (3e-8 the same,
    // 3e-9 0.3 mm, 0.7 mm, 0.031 rad), almost all of it from the rocking before the tips, where
    // the yaw rate falls from -2.9 to -0.14 rad/s; it falls with the tolerance (rtol 1e-10:
    // 7e-4 rad). The other branch ends 0.48 m, 0.58 m and 1.5 rad away.
    EXPECT_NEAR(e.x_m, ref.x_m, 5e-3) << label;
    EXPECT_NEAR(e.y_m, ref.y_m, 5e-3) << label;
    EXPECT_NEAR(e.yaw_rad, ref.yaw_rad, 0.15) << label;
    if (overrides.empty()) {
      RecordProperty("default_end_dx_m", format_number(e.x_m - ref.x_m));
      RecordProperty("default_end_dy_m", format_number(e.y_m - ref.y_m));
      RecordProperty("default_end_dyaw_rad", format_number(e.yaw_rad - ref.yaw_rad));
    }
  }
}

}  // namespace
}  // namespace cosim::dynamics::omniwheel
