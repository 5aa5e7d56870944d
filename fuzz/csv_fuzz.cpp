// Fuzz target: the CSV reader (cosim-report reads dynamics.csv and probes.csv of run folders
// that may be torn or edited). The input is written to a file in this process's scratch
// folder and read with CsvTable::read.
//
// Oracles, besides the sanitizers:
// - the only error is std::runtime_error whose what() starts with "<path>:" (csv_reader.hpp);
// - a table read has one value per row in every column, and finds each column by its name;
// - written again with CsvWriter ("so a reader gets the exact doubles", csv_writer.hpp), it
//   reads back with the same columns and bit-identical values (any NaN as a NaN).

#include <cosim/util/csv_reader.hpp>
#include <cosim/util/csv_writer.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/fuzz_support.hpp"

namespace {

using cosim::fuzz::check;
using cosim::util::CsvTable;

bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;  // tells -0 from +0
}

void check_table(const CsvTable& table) {
  const std::vector<std::string>& columns = table.columns();
  check(!columns.empty(), "a table without columns");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const int i = table.index(columns[c]);
    check(i >= 0 && static_cast<std::size_t>(i) <= c && columns[static_cast<std::size_t>(i)] == columns[c],
          "index('" + columns[c] + "') does not find the column");
    check(table.has(columns[c]), "has('" + columns[c] + "') is false");
    check(table.column(columns[c]).size() == table.rows(), "column '" + columns[c] + "' has not rows() values");
  }
}

// Writes `table` with CsvWriter and reads it back: same columns, same values.
void check_rewrite(const CsvTable& table, const std::filesystem::path& path) {
  const std::vector<std::string>& columns = table.columns();
  // column(name) gives the first column of that name (there is no access by position), so
  // repeated names are written with that column's values in each of their places.
  std::vector<std::span<const double>> by_position;
  for (const std::string& name : columns) by_position.push_back(table.column(name));
  {
    cosim::util::CsvWriter writer(path, columns);
    std::vector<double> row(columns.size());
    for (std::size_t r = 0; r < table.rows(); ++r) {
      for (std::size_t c = 0; c < columns.size(); ++c) row[c] = by_position[c][r];
      writer.row(row);
    }
    writer.flush();
  }
  const CsvTable back = CsvTable::read(path);
  check(back.columns() == columns, "rewritten CSV: columns changed");
  check(back.rows() == table.rows(), "rewritten CSV: " + std::to_string(back.rows()) + " rows, wrote " +
                                         std::to_string(table.rows()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto a = by_position[c];
    const auto b = back.column(columns[c]);
    for (std::size_t r = 0; r < a.size(); ++r) {
      check(same_value(a[r], b[r]), "rewritten CSV: column '" + columns[c] + "' row " + std::to_string(r + 1) +
                                        " changed value");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cosim::fuzz::ScratchDir dir("csv");
  const std::filesystem::path input = dir.path() / "input.csv";
  cosim::fuzz::write_file(input, std::span(data, size));
  return cosim::fuzz::guarded([&] {
    std::vector<CsvTable> read;  // 0 or 1 table: the rewrite runs outside the catch below
    try {
      read.push_back(CsvTable::read(input));
    } catch (const std::runtime_error& e) {
      check(cosim::fuzz::starts_with(e.what(), input.string() + ":"),
            std::string("CSV error does not start with the path: ") + e.what());
    }
    if (read.empty()) return;
    check_table(read.front());
    check_rewrite(read.front(), dir.path() / "rewritten.csv");
  });
}
