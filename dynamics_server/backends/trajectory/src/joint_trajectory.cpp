#include "cosim/dynamics/trajectory/joint_trajectory.hpp"

#include <algorithm>
#include <cmath>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/time_table.hpp"

namespace cosim::dynamics::trajectory {
namespace {

// Natural cubic spline (M = y'' = 0 at both ends) through the rows of one column `c`: solves
// the tridiagonal system for the second derivatives at the rows (Thomas algorithm).
void natural_spline(std::span<const double> t, std::span<const double> values, std::size_t columns, std::size_t c,
                    std::span<double> second_der) {
  const std::size_t n = t.size();
  const auto y = [&](std::size_t i) { return values[i * columns + c]; };
  std::vector<double> diag(n, 1.0), upper(n, 0.0), rhs(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double h0 = t[i] - t[i - 1];
    const double h1 = t[i + 1] - t[i];
    const double lower = h0;
    diag[i] = 2.0 * (h0 + h1);
    upper[i] = h1;
    rhs[i] = 6.0 * ((y(i + 1) - y(i)) / h1 - (y(i) - y(i - 1)) / h0);
    // Eliminate the lower diagonal with row i − 1 (row 0 is M_0 = 0: upper[0] = 0).
    const double factor = lower / diag[i - 1];
    diag[i] -= factor * upper[i - 1];
    rhs[i] -= factor * rhs[i - 1];
  }
  std::vector<double> m(n, 0.0);  // m[n − 1] = 0: natural end
  for (std::size_t i = n - 1; i-- > 1;) m[i] = (rhs[i] - upper[i] * m[i + 1]) / diag[i];
  for (std::size_t i = 0; i < n; ++i) second_der[i * columns + c] = m[i];
}

}  // namespace

JointTrajectory JointTrajectory::read(const std::filesystem::path& file, Interpolation interpolation, bool loop) {
  const std::string path = file.string();
  TimeTable table = read_time_table(file, kMaxTrajectoryCsvBytes, "<Model/joint>", 2);
  JointTrajectory traj;
  traj.interpolation_ = interpolation;
  traj.loop_ = loop;
  // Joint columns: scoped "<Model>/<joint>", all of the first column's model.
  for (const std::string& name : table.names) {
    const std::size_t slash = name.find('/');
    if (slash == 0 || slash == std::string::npos || slash + 1 == name.size()) {
      throw ParamError(path + ":1: column '" + name + "' is not a scoped scene joint name '<Model>/<joint>'");
    }
    const std::string model = name.substr(0, slash);
    if (traj.model_name_.empty()) {
      traj.model_name_ = model;
    } else if (model != traj.model_name_) {
      throw ParamError(path + ":1: column '" + name + "' is a joint of model '" + model + "', column '" +
                       table.names.front() + "' of model '" + traj.model_name_ + "': all joints must be of one model");
    }
  }
  traj.joint_names_ = std::move(table.names);
  traj.times_s_ = std::move(table.times_s);
  traj.values_ = std::move(table.values);
  const std::size_t joints = traj.joint_names_.size();
  if (interpolation == Interpolation::cubic) {
    traj.second_der_.resize(traj.values_.size());
    for (std::size_t c = 0; c < joints; ++c) natural_spline(traj.times_s_, traj.values_, joints, c, traj.second_der_);
  }
  return traj;
}

std::span<const double> JointTrajectory::row(std::size_t row) const {
  return std::span<const double>(values_).subspan(row * joint_names_.size(), joint_names_.size());
}

void JointTrajectory::sample(double t_s, std::span<double> q, std::span<double> qdot) const {
  const std::size_t joints = joint_names_.size();
  const double t_first = times_s_.front();
  const double t_last = times_s_.back();
  const auto hold = [&](std::size_t r) {
    std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(r * joints), joints, q.begin());
    std::fill_n(qdot.begin(), joints, 0.0);
  };
  if (t_s < t_first) return hold(0);
  double tau = t_s;  // time on the CSV's own axis
  if (t_s >= t_last) {
    if (!loop_) return hold(times_s_.size() - 1);
    // Period = span: t_last + k·span is the first row again (the seam).
    tau = t_first + std::fmod(t_s - t_last, t_last - t_first);
  }
  // Segment [t_k, t_k+1] holding tau: the one starting at tau if tau is a row's time.
  const auto later = std::upper_bound(times_s_.begin(), times_s_.end(), tau);
  const std::size_t k = std::min(static_cast<std::size_t>(later - times_s_.begin()), times_s_.size() - 1) - 1;
  const double h = times_s_[k + 1] - times_s_[k];
  const double b = tau - times_s_[k];    // from the segment's start [s]
  const double a = times_s_[k + 1] - tau;  // to its end [s]
  const double* y0 = values_.data() + k * joints;
  const double* y1 = y0 + joints;
  if (interpolation_ == Interpolation::linear) {
    const double s = b / h;
    for (std::size_t c = 0; c < joints; ++c) {
      q[c] = y0[c] + s * (y1[c] - y0[c]);
      qdot[c] = (y1[c] - y0[c]) / h;
    }
    return;
  }
  // S(τ) = M0 a³/6h + M1 b³/6h + (y0/h − M0 h/6) a + (y1/h − M1 h/6) b, S' its derivative.
  const double* m0 = second_der_.data() + k * joints;
  const double* m1 = m0 + joints;
  for (std::size_t c = 0; c < joints; ++c) {
    const double c0 = y0[c] / h - m0[c] * h / 6.0;
    const double c1 = y1[c] / h - m1[c] * h / 6.0;
    q[c] = b == 0.0 ? y0[c] : (m0[c] * a * a * a + m1[c] * b * b * b) / (6.0 * h) + c0 * a + c1 * b;
    qdot[c] = (m1[c] * b * b - m0[c] * a * a) / (2.0 * h) - c0 + c1;
  }
}

}  // namespace cosim::dynamics::trajectory
