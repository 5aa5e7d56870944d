#include "cosim/util/csv_reader.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {

namespace {

[[noreturn]] void fail(const CsvReadOptions& options, const std::string& message) {
  if (options.fail != nullptr) options.fail(message);
  throw BadInputError(message);  // also if options.fail returned
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

// The whole field as one number (from_chars: the same in every locale), or false.
bool parse_number(std::string_view text, double& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // from_chars rejects '+'
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

// One line into `line`, without its '\n' (`ended`: it had one). kEnd at the end of the input;
// kTooLong as soon as the line passes max_bytes, before it is held whole.
enum class LineRead { kLine, kEnd, kTooLong };
LineRead read_line(std::streambuf& in, std::string& line, std::size_t max_bytes, bool& ended) {
  line.clear();
  ended = false;
  for (int c = in.sbumpc(); c != std::char_traits<char>::eof(); c = in.sbumpc()) {
    if (c == '\n') {
      ended = true;
      return LineRead::kLine;
    }
    if (line.size() >= max_bytes) return LineRead::kTooLong;
    line.push_back(static_cast<char>(c));
  }
  return line.empty() ? LineRead::kEnd : LineRead::kLine;
}

}  // namespace

CsvTable CsvTable::read(const std::filesystem::path& path, const CsvReadOptions& options) {
  const std::string file = path.string();
  // Only a regular file (or a link to one): a FIFO would block here, a device never end.
  std::error_code kind_ec;
  if (!std::filesystem::is_regular_file(path, kind_ec)) {
    const bool exists = std::filesystem::exists(path, kind_ec);
    fail(options, file + (exists ? ": not a regular file" : ": cannot read: no such file"));
  }
  std::ifstream in(path, std::ios::binary);  // binary: a CR is trimmed like any white space
  if (!in) fail(options, file + ": cannot read");
  if (options.max_bytes > 0) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) fail(options, file + ": cannot read: " + ec.message());
    if (size > options.max_bytes) {
      fail(options, file + ": " + std::to_string(size) + " bytes; the limit is " + std::to_string(options.max_bytes));
    }
  }
  CsvTable table;
  table.path_ = path;
  std::string line;
  bool ended = false;
  std::streambuf& buffer = *in.rdbuf();
  const auto next_line = [&](std::size_t line_number) {
    const LineRead got = read_line(buffer, line, options.max_line_bytes, ended);
    if (got == LineRead::kTooLong) {
      fail(options, file + ":" + std::to_string(line_number) + ": a line longer than " +
                        std::to_string(options.max_line_bytes) + " bytes");
    }
    return got == LineRead::kLine;
  };
  if (!next_line(1)) fail(options, file + ":1: empty file; expected a header row");
  table.lines_ = 1;
  for (const std::string_view name : split(line)) table.columns_.emplace_back(name);
  table.data_.resize(table.columns_.size());
  while (next_line(table.lines_ + 1)) {
    const std::size_t line_number = ++table.lines_;
    if (trim(line).empty()) continue;
    if (!ended && !options.last_line_may_lack_newline) {  // no newline: a writer killed mid-row tore it
      table.torn_line_ = line_number;
      break;
    }
    const std::string where = file + ":" + std::to_string(line_number);
    const std::vector<std::string_view> cells = split(line);
    if (cells.size() != table.columns_.size()) {
      fail(options, where + ": " + std::to_string(cells.size()) + " fields; the header has " +
                        std::to_string(table.columns_.size()));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      double value = 0.0;
      const bool number = parse_number(cells[c], value);
      if (!number || (options.finite_only && !std::isfinite(value))) {
        fail(options, where + ": column '" + table.columns_[c] + "': '" + std::string(cells[c]) + "' is not a " +
                          (options.finite_only ? "finite number" : "number"));
      }
      table.data_[c].push_back(value);
    }
    table.row_lines_.push_back(line_number);
    ++table.rows_;
  }
  if (in.bad()) fail(options, file + ":" + std::to_string(table.lines_) + ": read error");
  return table;
}

int CsvTable::index(const std::string& column) const {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == column) return static_cast<int>(i);
  }
  return -1;
}

std::span<const double> CsvTable::column(const std::string& column) const {
  const int i = index(column);
  // A file without a column its run promises (run.json's probes, say) is bad input, not a bug.
  if (i < 0) throw BadInputError(path_.string() + ": no column '" + column + "'");
  return data_[static_cast<std::size_t>(i)];
}

}  // namespace cosim::util
