#pragma once

#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosim::util {

/// Buffered CSV file: a header row, then rows of numbers written with the shortest
/// representation that round-trips (std::to_chars), so a reader gets the exact doubles.
class CsvWriter {
 public:
  /// Creates (truncates) path. Throws std::runtime_error naming the path on failure.
  CsvWriter(const std::filesystem::path& path, std::span<const std::string> columns);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  /// One row; values.size() must equal the column count (std::invalid_argument otherwise).
  void row(std::span<const double> values);
  void flush();
  std::size_t columns() const { return column_count_; }
  std::size_t rows() const { return row_count_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::size_t column_count_ = 0;
  std::size_t row_count_ = 0;
  std::string line_;  // reused per row
};

}  // namespace cosim::util
