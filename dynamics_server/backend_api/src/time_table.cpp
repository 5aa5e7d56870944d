#include "cosim/dynamics/time_table.hpp"

#include <algorithm>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/dynamics/params.hpp"
#include "cosim/util/csv_reader.hpp"

namespace cosim::dynamics {

TimeTable read_time_table(const std::filesystem::path& file, std::uintmax_t max_bytes, std::string_view columns,
                          std::size_t min_rows) {
  const std::string path = file.string();
  const util::CsvTable table = util::CsvTable::read(
      file, {.max_bytes = max_bytes,
             .finite_only = true,
             .last_line_may_lack_newline = true,  // a hand-written file may lack it
             .fail = [](const std::string& message) { throw ParamError(message); }});
  const std::vector<std::string>& header = table.columns();
  if (header.front() != "t_s" || header.size() < 2) {
    std::string got;
    for (const std::string& name : header) got += (got.empty() ? "" : ",") + name;
    throw ParamError(path + ":1: the header must be 't_s," + std::string(columns) + ",...', got '" + got + "'");
  }
  TimeTable out;
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (header[c].empty()) throw ParamError(path + ":1: column " + std::to_string(c + 1) + " has no name");
    if (std::find(out.names.begin(), out.names.end(), header[c]) != out.names.end()) {
      throw ParamError(path + ":1: column '" + header[c] + "' given twice");
    }
    out.names.push_back(header[c]);
  }
  if (table.rows() < std::max<std::size_t>(min_rows, 1)) {
    throw ParamError(path + ":" + std::to_string(table.lines()) + ": " +
                     (table.rows() == 0 ? std::string("no data row after the header")
                                        : std::to_string(table.rows()) + " data row(s); at least " +
                                              std::to_string(min_rows) + " are needed"));
  }
  const std::span<const double> t_s = table.column("t_s");
  for (std::size_t row = 1; row < t_s.size(); ++row) {
    if (!(t_s[row] > t_s[row - 1])) {
      throw ParamError(path + ":" + std::to_string(table.line_of(row)) + ": t_s = " + format_number(t_s[row]) +
                       " is not later than the row before (" + format_number(t_s[row - 1]) + ")");
    }
  }
  out.times_s.assign(t_s.begin(), t_s.end());
  out.values.resize(table.rows() * out.names.size());
  for (std::size_t c = 0; c < out.names.size(); ++c) {
    const std::span<const double> column = table.column(out.names[c]);
    for (std::size_t row = 0; row < column.size(); ++row) out.values[row * out.names.size() + c] = column[row];
  }
  return out;
}

}  // namespace cosim::dynamics
