#include "cosim/util/csv_reader.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace cosim::util {

namespace {
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}
}  // namespace

CsvTable CsvTable::read(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot read");
  CsvTable table;
  table.path_ = path;
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(path.string() + ":1: empty file, expected a header row");
  table.columns_ = split(line);
  table.data_.resize(table.columns_.size());
  std::size_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    if (in.eof()) {  // no newline after the last line: a writer killed mid-row tore it
      table.torn_line_ = line_number;
      break;
    }
    const auto cells = split(line);
    if (cells.size() != table.columns_.size()) {
      throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": " +
                               std::to_string(cells.size()) + " cells, the header has " +
                               std::to_string(table.columns_.size()));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      char* end = nullptr;
      const double v = std::strtod(cells[c].c_str(), &end);
      if (cells[c].empty() || end != cells[c].c_str() + cells[c].size()) {
        throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": '" + cells[c] +
                                 "' in column " + table.columns_[c] + " is not a number");
      }
      table.data_[c].push_back(v);
    }
    ++table.rows_;
  }
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
  if (i < 0) throw std::out_of_range(path_.string() + ": no column '" + column + "'");
  return data_[static_cast<std::size_t>(i)];
}

}  // namespace cosim::util
