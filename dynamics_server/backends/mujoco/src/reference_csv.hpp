#pragma once
/// @file
/// A reference trajectory read from CSV: header "t_s,<name>,...", one row per time, values
/// linear between rows and held before the first and after the last (MODEL.md §4).

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosim::dynamics::mujoco {

/// Largest reference CSV accepted [bytes]: checked before reading (STYLE 7).
inline constexpr std::uintmax_t kMaxReferenceCsvBytes = 64u << 20;

class ReferenceCsv {
 public:
  /// Reads `file` with util::CsvTable (white space around fields, CRLF and blank lines are
  /// fine; a last line without its newline is a row). Throws ParamError "<file>:<line>: ..."
  /// for a header that does not start with t_s or repeats a name, a row with another number
  /// of fields, a field that is not a finite number, a time not later than the row before, or
  /// no row; "<file>: ..." for a file that cannot be read or is larger than
  /// kMaxReferenceCsvBytes.
  static ReferenceCsv read(const std::filesystem::path& file);

  /// Column names after t_s.
  const std::vector<std::string>& names() const { return names_; }
  /// Every column's value at t_s into `values` (names() order). Does not allocate.
  void sample(double t_s, std::span<double> values) const;

 private:
  std::vector<std::string> names_;
  std::vector<double> times_s_;  // strictly increasing
  std::vector<double> values_;   // row-major: times_s_.size() rows of names_.size()
};

}  // namespace cosim::dynamics::mujoco
