#pragma once
/// @file
/// A joint trajectory read from CSV: header "t_s,<Model/joint>,...", one row per time, played
/// with linear or natural-cubic-spline interpolation, held or looped outside its rows (MODEL.md).

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosim::dynamics::trajectory {

/// Largest trajectory CSV accepted [bytes]: checked before reading (STYLE 7).
inline constexpr std::uintmax_t kMaxTrajectoryCsvBytes = 64u << 20;

/// How values between rows are found (the `interpolation` parameter's choices, in order).
enum class Interpolation : std::uint8_t {
  linear,  ///< straight segments; velocity = the segment's slope
  cubic,   ///< natural cubic spline through every row (C2; zero second derivative at both ends)
};

class JointTrajectory {
 public:
  /// Reads `file` with util::CsvTable. Throws ParamError "<file>:<line>: ..." naming the column
  /// for: a header that does not start with t_s, has no joint column, an empty or repeated
  /// name, a name that is not "<Model>/<joint>", joints of two models; a row with another number
  /// of fields or a field that is not a finite number; a time not later than the row before;
  /// fewer than 2 rows. "<file>: ..." for a file that cannot be read or exceeds
  /// kMaxTrajectoryCsvBytes.
  static JointTrajectory read(const std::filesystem::path& file, Interpolation interpolation, bool loop);

  /// The prefix shared by every joint column ("Robotino" for "Robotino/x").
  const std::string& model_name() const { return model_name_; }
  /// Joint columns after t_s, in file order (scoped scene joint names).
  const std::vector<std::string>& joint_names() const { return joint_names_; }
  /// Row times [s], strictly increasing, at least 2.
  std::span<const double> times_s() const { return times_s_; }
  /// Row `row`'s joint values [m or rad], joint_names() order.
  std::span<const double> row(std::size_t row) const;
  Interpolation interpolation() const { return interpolation_; }
  bool loops() const { return loop_; }

  /// Joint values `q` [m or rad] and their time derivatives `qdot` [m/s or rad/s] at `t_s`,
  /// joint_names() order. Before the first row: the first row, qdot 0. After the last row: the
  /// last row with qdot 0, or, looping, the trajectory again from the first row with time
  /// shifted by the span (last − first row time); at a seam the first row's value. At a row's
  /// time the velocity is that of the segment starting there. Does not allocate.
  void sample(double t_s, std::span<double> q, std::span<double> qdot) const;

 private:
  std::string model_name_;
  std::vector<std::string> joint_names_;
  std::vector<double> times_s_;
  std::vector<double> values_;       // row-major: rows × joints
  std::vector<double> second_der_;   // cubic: the spline's second derivative at each row, row-major
  Interpolation interpolation_ = Interpolation::linear;
  bool loop_ = false;
};

}  // namespace cosim::dynamics::trajectory
