#include "reference_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string_view>
#include <system_error>

#include "cosim/dynamics/params.hpp"

namespace cosim::dynamics {
namespace {

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// The comma-separated fields of one line, trimmed.
std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t at = 0;;) {
    const std::size_t comma = line.find(',', at);
    fields.push_back(trim(line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at)));
    if (comma == std::string_view::npos) return fields;
    at = comma + 1;
  }
}

double parse_number(std::string_view text, const std::string& where, std::string_view column) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars rejects '+'
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || !std::isfinite(value)) {
    throw ParamError(where + ": column '" + std::string(column) + "': '" + std::string(text) +
                     "' is not a finite number");
  }
  return value;
}

}  // namespace

ReferenceCsv ReferenceCsv::read(const std::filesystem::path& file) {
  const std::string path = file.string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw ParamError("cannot read reference CSV '" + path + "': " + ec.message());
  if (size > kMaxReferenceCsvBytes) {
    throw ParamError("reference CSV '" + path + "' is " + std::to_string(size) + " bytes; the limit is " +
                     std::to_string(kMaxReferenceCsvBytes));
  }
  std::ifstream in(file);
  if (!in) throw ParamError("cannot open reference CSV '" + path + "'");

  ReferenceCsv csv;
  std::string line;
  int line_no = 0;
  // Header: t_s, then one unique name per column.
  if (!std::getline(in, line)) throw ParamError(path + ":1: empty file; expected a header 't_s,<name>,...'");
  ++line_no;
  const std::vector<std::string_view> header = split(line);  // views into `line`: used before the next read
  if (header.front() != "t_s" || header.size() < 2) {
    throw ParamError(path + ":1: the header must be 't_s,<joint or actuator>,...', got '" + std::string(trim(line)) +
                     "'");
  }
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (header[c].empty()) throw ParamError(path + ":1: column " + std::to_string(c + 1) + " has no name");
    if (std::find(csv.names_.begin(), csv.names_.end(), header[c]) != csv.names_.end()) {
      throw ParamError(path + ":1: column '" + std::string(header[c]) + "' given twice");
    }
    csv.names_.emplace_back(header[c]);
  }
  // Rows: as many fields as the header, finite numbers, time increasing. Blank lines are skipped.
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const std::vector<std::string_view> fields = split(line);
    if (fields.size() != csv.names_.size() + 1) {
      throw ParamError(where + ": " + std::to_string(fields.size()) + " fields; the header has " +
                       std::to_string(csv.names_.size() + 1));
    }
    const double t_s = parse_number(fields[0], where, "t_s");
    if (!csv.times_s_.empty() && !(t_s > csv.times_s_.back())) {
      throw ParamError(where + ": t_s = " + std::string(fields[0]) + " is not later than the row before");
    }
    csv.times_s_.push_back(t_s);
    for (std::size_t c = 1; c < fields.size(); ++c) {
      csv.values_.push_back(parse_number(fields[c], where, csv.names_[c - 1]));
    }
  }
  if (in.bad()) throw ParamError("error reading reference CSV '" + path + "'");
  if (csv.times_s_.empty()) throw ParamError(path + ":" + std::to_string(line_no) + ": no data row after the header");
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

}  // namespace cosim::dynamics
