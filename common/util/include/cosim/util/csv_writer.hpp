#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cosim/util/record_file.hpp"

namespace cosim::util {

/// Buffered CSV file: a header row, then rows of numbers written with the shortest
/// representation that round-trips (std::to_chars), so a reader gets the exact doubles.
/// Rows are whole on disk whatever happens (util::RecordFile), and reach it every 8 KiB, so
/// a running table can be followed (tail -f) and a crash loses little.
class CsvWriter {
 public:
  /// Creates (truncates) path. Throws util::OutputError naming the path on failure.
  CsvWriter(const std::filesystem::path& path, std::span<const std::string> columns);
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  /// One row; values.size() must equal the column count (std::invalid_argument otherwise).
  /// Throws util::OutputError when the file cannot take it.
  void row(std::span<const double> values);
  /// Writes the buffered rows. Throws util::OutputError.
  void flush() { file_.flush(); }
  std::size_t columns() const { return column_count_; }
  std::size_t rows() const { return row_count_; }
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  RecordFile file_;
  std::size_t column_count_ = 0;
  std::size_t row_count_ = 0;
  std::string line_;  // reused per row
};

}  // namespace cosim::util
