#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosim::util {

/// A numeric CSV file with a header row, as cosim writes them, held column-wise.
class CsvTable {
 public:
  /// Throws std::runtime_error "<path>:<line>: ..." for a missing file, a ragged row or a
  /// cell that is not a number ("nan" is a number). A last line without its newline (a
  /// writer killed mid-row) is left out and reported by torn_line().
  static CsvTable read(const std::filesystem::path& path);

  const std::vector<std::string>& columns() const { return columns_; }
  const std::filesystem::path& path() const { return path_; }
  std::size_t rows() const { return rows_; }
  /// Line number of a torn last line that was left out, or 0.
  std::size_t torn_line() const { return torn_line_; }
  bool has(const std::string& column) const { return index(column) >= 0; }
  /// Column index, or -1.
  int index(const std::string& column) const;
  /// The values of a column; throws std::out_of_range naming the column and the file.
  std::span<const double> column(const std::string& column) const;

 private:
  std::filesystem::path path_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;  // per column
  std::size_t rows_ = 0;
  std::size_t torn_line_ = 0;
};

}  // namespace cosim::util
