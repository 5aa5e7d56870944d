#pragma once
/// @file
/// Values over time read from a CSV a user writes: header "t_s,<name>,...", one row per time.
/// What the `mujoco` backend's reference and the `trajectory` backend's joints are read as.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cosim::dynamics {

struct TimeTable {
  std::vector<std::string> names;  ///< the columns after t_s, unique and not empty
  std::vector<double> times_s;     ///< strictly increasing
  std::vector<double> values;      ///< row-major: times_s.size() rows of names.size(), all finite

  /// Row `row`'s values, names order.
  std::span<const double> row(std::size_t row) const {
    return std::span<const double>(values).subspan(row * names.size(), names.size());
  }
};

/// Reads `file` with util::CsvTable (white space around fields, CRLF and blank lines are fine;
/// a last line without its newline is a row). `columns` names what the columns after t_s are,
/// for the header's error ("<joint or actuator>"). Throws ParamError "<file>:<line>: ..." for a
/// header that does not start with t_s or has no other column, a column without a name or
/// given twice, a row with another number of fields, a field that is not a finite number, a
/// time not later than the row before, or fewer than `min_rows` rows; "<file>: ..." for a file
/// that cannot be read or is larger than `max_bytes`.
TimeTable read_time_table(const std::filesystem::path& file, std::uintmax_t max_bytes, std::string_view columns,
                          std::size_t min_rows);

}  // namespace cosim::dynamics
