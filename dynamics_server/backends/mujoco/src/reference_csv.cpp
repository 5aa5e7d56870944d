#include "reference_csv.hpp"

#include <algorithm>
#include <charconv>

#include "cosim/dynamics/params.hpp"
#include "cosim/util/csv_reader.hpp"

namespace cosim::dynamics::mujoco {

ReferenceCsv ReferenceCsv::read(const std::filesystem::path& file) {
  const std::string path = file.string();
  // CsvTable checks the size, the number of fields and the numbers; a hand-written file may
  // lack its last newline.
  const util::CsvTable table = util::CsvTable::read(
      file, {.max_bytes = kMaxReferenceCsvBytes,
             .finite_only = true,
             .last_line_may_lack_newline = true,
             .fail = [](const std::string& message) { throw ParamError(message); }});
  // Header: t_s, then one unique name per column.
  const std::vector<std::string>& header = table.columns();
  if (header.front() != "t_s" || header.size() < 2) {
    std::string got;
    for (const std::string& name : header) got += (got.empty() ? "" : ",") + name;
    throw ParamError(path + ":1: the header must be 't_s,<joint or actuator>,...', got '" + got + "'");
  }
  ReferenceCsv csv;
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (header[c].empty()) throw ParamError(path + ":1: column " + std::to_string(c + 1) + " has no name");
    if (std::find(csv.names_.begin(), csv.names_.end(), header[c]) != csv.names_.end()) {
      throw ParamError(path + ":1: column '" + header[c] + "' given twice");
    }
    csv.names_.push_back(header[c]);
  }
  if (table.rows() == 0) throw ParamError(path + ":" + std::to_string(table.lines()) + ": no data row after the header");
  // Rows: time increasing; the values row-major for sample().
  const std::span<const double> t_s = table.column("t_s");
  for (std::size_t row = 1; row < t_s.size(); ++row) {
    if (!(t_s[row] > t_s[row - 1])) {
      char text[32];
      const auto written = std::to_chars(text, text + sizeof text, t_s[row]);
      throw ParamError(path + ":" + std::to_string(table.line_of(row)) + ": t_s = " + std::string(text, written.ptr) +
                       " is not later than the row before");
    }
  }
  csv.times_s_.assign(t_s.begin(), t_s.end());
  csv.values_.resize(table.rows() * csv.names_.size());
  for (std::size_t c = 0; c < csv.names_.size(); ++c) {
    const std::span<const double> column = table.column(csv.names_[c]);
    for (std::size_t row = 0; row < column.size(); ++row) csv.values_[row * csv.names_.size() + c] = column[row];
  }
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
