#include "cosim/util/csv_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace cosim::util {

CsvWriter::CsvWriter(const std::filesystem::path& path, std::span<const std::string> columns)
    : file_(path), column_count_(columns.size()) {
  std::string header;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) header += ',';
    header += columns[i];
  }
  header += '\n';
  file_.append(header);
  file_.flush();  // the header at once: a run that fails early still leaves a readable table
  line_.reserve(32 * column_count_ + 1);
}

void CsvWriter::row(std::span<const double> values) {
  if (values.size() != column_count_) {
    throw std::invalid_argument(path().string() + ": expected " + std::to_string(column_count_) +
                                " CSV values, got " + std::to_string(values.size()));
  }
  line_.clear();
  char buffer[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) line_ += ',';
    const double v = values[i];
    if (std::isnan(v)) {
      line_ += "nan";
      continue;
    }
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    line_.append(buffer, end);
  }
  line_ += '\n';
  file_.append(line_);
  ++row_count_;
}

}  // namespace cosim::util
