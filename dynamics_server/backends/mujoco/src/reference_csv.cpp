#include "reference_csv.hpp"

#include <algorithm>

#include "cosim/dynamics/time_table.hpp"

namespace cosim::dynamics::mujoco {

ReferenceCsv ReferenceCsv::read(const std::filesystem::path& file) {
  TimeTable table = read_time_table(file, kMaxReferenceCsvBytes, "<joint or actuator>", 1);
  ReferenceCsv csv;
  csv.names_ = std::move(table.names);
  csv.times_s_ = std::move(table.times_s);
  csv.values_ = std::move(table.values);
  return csv;
}

void ReferenceCsv::sample(double t_s, std::span<double> values) const {
  const std::size_t columns = names_.size();
  // First row later than t_s: the row before it and this one bracket t_s.
  const auto later = std::upper_bound(times_s_.begin(), times_s_.end(), t_s);
  if (later == times_s_.begin() || later == times_s_.end()) {  // before the first or after the last: held
    const std::size_t row = later == times_s_.begin() ? 0 : times_s_.size() - 1;
    std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(row * columns), columns, values.begin());
    return;
  }
  const auto row = static_cast<std::size_t>(later - times_s_.begin());
  const double s = (t_s - times_s_[row - 1]) / (times_s_[row] - times_s_[row - 1]);
  for (std::size_t c = 0; c < columns; ++c) {
    const double a = values_[(row - 1) * columns + c];
    const double b = values_[row * columns + c];
    values[c] = a + s * (b - a);
  }
}

}  // namespace cosim::dynamics::mujoco
