#include "cosim/util/csv_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace cosim::util {

CsvWriter::CsvWriter(const std::filesystem::path& path, std::span<const std::string> columns)
    : path_(path), column_count_(columns.size()) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    throw std::runtime_error(path.string() + ": cannot create CSV file: " + std::strerror(errno));
  }
  std::string header;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) header += ',';
    header += columns[i];
  }
  header += '\n';
  std::fwrite(header.data(), 1, header.size(), file_);
  line_.reserve(32 * column_count_ + 1);
}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void CsvWriter::row(std::span<const double> values) {
  if (values.size() != column_count_) {
    throw std::invalid_argument(path_.string() + ": expected " + std::to_string(column_count_) +
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
  std::fwrite(line_.data(), 1, line_.size(), file_);
  ++row_count_;
}

void CsvWriter::flush() { std::fflush(file_); }

}  // namespace cosim::util
