#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cosim::util {

/// How CsvTable::read takes a file. The defaults read cosim's own run tables.
struct CsvReadOptions {
  /// Largest file accepted [bytes], checked before reading (STYLE 7); 0: no limit.
  std::uintmax_t max_bytes = 0;
  /// Longest line accepted [bytes] (a header of thousands of columns is well under it); a
  /// longer one is an error naming the line before it is held in memory.
  std::size_t max_line_bytes = std::size_t{1} << 20;
  /// Refuse nan and inf: for an input, where a run table writes nan for "no value".
  bool finite_only = false;
  /// A last line without its newline is a row (a file written by hand) rather than a torn
  /// one left out.
  bool last_line_may_lack_newline = false;
  /// Throws the error for `message` ("<path>:<line>: ..."). Null: a util::BadInputError. A
  /// layer with its own error type passes its thrower (the mujoco backend's ParamError).
  void (*fail)(const std::string& message) = nullptr;
};

/// A numeric CSV file with a header row, as cosim writes them, held column-wise. Cells and
/// names are trimmed of white space (so CRLF line ends are fine); blank lines are skipped.
class CsvTable {
 public:
  /// Throws (a util::BadInputError, or options.fail's) "<path>:<line>: ..." for an empty file,
  /// a row with another number of fields than the header, or a field that is not a number
  /// ("nan" is one unless options.finite_only), a line longer than options.max_line_bytes;
  /// "<path>: ..." for a file that cannot be read, is not a regular file (a FIFO would block,
  /// a device never end) or is larger than options.max_bytes. A last line without its newline (a writer killed
  /// mid-row) is left out and reported by torn_line(), unless
  /// options.last_line_may_lack_newline.
  static CsvTable read(const std::filesystem::path& path, const CsvReadOptions& options = {});

  const std::vector<std::string>& columns() const { return columns_; }
  const std::filesystem::path& path() const { return path_; }
  std::size_t rows() const { return rows_; }
  /// Line number (from 1, the header) of row `row` (from 0), for messages.
  std::size_t line_of(std::size_t row) const { return row_lines_.at(row); }
  /// Lines in the file, the header, blank lines and a torn last line included.
  std::size_t lines() const { return lines_; }
  /// Line number of a torn last line that was left out, or 0.
  std::size_t torn_line() const { return torn_line_; }
  bool has(const std::string& column) const { return index(column) >= 0; }
  /// Column index, or -1.
  int index(const std::string& column) const;
  /// The values of a column; throws BadInputError naming the column and the file.
  std::span<const double> column(const std::string& column) const;

 private:
  std::filesystem::path path_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> data_;  // per column
  std::vector<std::size_t> row_lines_;     // per row
  std::size_t rows_ = 0;
  std::size_t lines_ = 0;
  std::size_t torn_line_ = 0;
};

}  // namespace cosim::util
