// CsvTable, the numeric CSV reader (run tables, the mujoco backend's reference CSV), and trim().
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "cosim/test/scratch_dir.hpp"
#include "cosim/util/csv_reader.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {
namespace {

using ::testing::HasSubstr;

class CsvTableTest : public cosim::test::ScratchDirTest {
 protected:
  std::filesystem::path write(const std::string& text) const { return ScratchDirTest::write("table.csv", text); }
  // The message of the BadInputError reading `text` throws, or "".
  std::string error_of(const std::string& text, const CsvReadOptions& options = {}) const {
    const auto path = write(text);
    try {
      (void)CsvTable::read(path, options);
    } catch (const BadInputError& e) {
      return e.what();
    }
    return "";
  }

};

TEST_F(CsvTableTest, ReadsColumnsAndRowsWithTheirLines) {
  const auto table = CsvTable::read(write("t_s,x_m\n0,1.5\n\n0.5,nan\n"));
  EXPECT_EQ(table.columns(), (std::vector<std::string>{"t_s", "x_m"}));
  ASSERT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.column("x_m")[0], 1.5);
  EXPECT_TRUE(std::isnan(table.column("x_m")[1])) << "a run table writes nan for no value";
  EXPECT_EQ(table.line_of(0), 2u);
  EXPECT_EQ(table.line_of(1), 4u) << "the blank line counts";
  EXPECT_EQ(table.lines(), 4u);
  EXPECT_EQ(table.torn_line(), 0u);
}

TEST_F(CsvTableTest, SpacesCrlfAndAPlusSignAreFine) {
  const auto table = CsvTable::read(write("t_s , x_m\r\n 0,+1 \r\n\r\n1\t, -2e3\r\n"));
  EXPECT_EQ(table.columns(), (std::vector<std::string>{"t_s", "x_m"}));
  ASSERT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.column("x_m")[0], 1.0);
  EXPECT_EQ(table.column("x_m")[1], -2000.0);
}

TEST_F(CsvTableTest, ATornLastLineIsLeftOutUnlessItMayLackItsNewline) {
  const std::string text = "t_s,x_m\n0,1\n1,2";
  const auto run_table = CsvTable::read(write(text));
  EXPECT_EQ(run_table.rows(), 1u);
  EXPECT_EQ(run_table.torn_line(), 3u);
  const auto by_hand = CsvTable::read(write(text), {.last_line_may_lack_newline = true});
  EXPECT_EQ(by_hand.rows(), 2u);
  EXPECT_EQ(by_hand.torn_line(), 0u);
  EXPECT_EQ(by_hand.column("x_m")[1], 2.0);
  EXPECT_THAT(error_of("t_s,x_m\n0,1\n1,", {.last_line_may_lack_newline = true}),
              HasSubstr("table.csv:3: column 'x_m': '' is not a number"));
}

TEST_F(CsvTableTest, EachErrorNamesFileAndLine) {
  EXPECT_THAT(error_of(""), HasSubstr("table.csv:1: empty file"));
  EXPECT_THAT(error_of("a,b\n1,2\n1\n"), HasSubstr("table.csv:3: 1 fields; the header has 2"));
  EXPECT_THAT(error_of("a,b\n1,x\n"), HasSubstr("table.csv:2: column 'b': 'x' is not a number"));
  EXPECT_THAT(error_of("a,b\n1,0x10\n"), HasSubstr("table.csv:2: column 'b': '0x10' is not a number"));
  EXPECT_THAT(error_of("a,b\n1,inf\n", {.finite_only = true}),
              HasSubstr("table.csv:2: column 'b': 'inf' is not a finite number"));
  EXPECT_THAT(error_of("a,b\n1,nan\n", {.finite_only = true}), HasSubstr("'nan' is not a finite number"));
  EXPECT_EQ(error_of("a,b\n1,inf\n"), "") << "a run table may hold inf";
  const auto missing = dir_ / "missing.csv";
  EXPECT_THROW((void)CsvTable::read(missing), BadInputError);
}

TEST_F(CsvTableTest, AFileOverTheLimitIsRefusedBeforeReading) {
  const auto path = write("");
  std::filesystem::resize_file(path, 1001);  // sparse zeros: not a CSV, never read
  try {
    (void)CsvTable::read(path, {.max_bytes = 1000});
    ADD_FAILURE() << "read a file over the limit";
  } catch (const BadInputError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": 1001 bytes; the limit is 1000");
  }
  EXPECT_EQ(CsvTable::read(write("a\n1\n"), {.max_bytes = 4}).rows(), 1u) << "the limit itself is fine";
}

TEST_F(CsvTableTest, ALineOverTheLimitIsRefusedBeforeItIsHeldWhole) {
  const std::string header = "a,b\n";
  const std::string long_row(64, '1');
  EXPECT_EQ(error_of(header + long_row + "\n", {.max_line_bytes = 32}),
            write("").string() + ":2: a line longer than 32 bytes");
  EXPECT_EQ(error_of(long_row + "\n", {.max_line_bytes = 32}), write("").string() + ":1: a line longer than 32 bytes");
  EXPECT_EQ(CsvTable::read(write("a\n12345\n"), {.max_line_bytes = 5}).rows(), 1u) << "the limit itself is fine";
}

TEST_F(CsvTableTest, OnlyARegularFileIsRead) {
  // A folder named like a table is not "an empty file".
  std::filesystem::create_directories(dir_ / "folder.csv");
  try {
    (void)CsvTable::read(dir_ / "folder.csv");
    ADD_FAILURE() << "read a folder";
  } catch (const BadInputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "folder.csv").string() + ": not a regular file");
  }
#ifndef _WIN32
  // A FIFO would block the reader for ever, a device never end: both refused at once.
  const auto fifo = dir_ / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::filesystem::path& path : {fifo, std::filesystem::path("/dev/zero")}) {
    try {
      (void)CsvTable::read(path);
      ADD_FAILURE() << "read " << path;
    } catch (const BadInputError& e) {
      EXPECT_EQ(std::string(e.what()), path.string() + ": not a regular file");
    }
  }
#endif
}

struct TestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TEST_F(CsvTableTest, ALayerMayThrowItsOwnError) {
  const auto path = write("a\nx\n");
  const CsvReadOptions options{.fail = [](const std::string& message) { throw TestError(message); }};
  EXPECT_THROW((void)CsvTable::read(path, options), TestError);
}

TEST(Trim, RemovesAsciiWhiteSpaceAtBothEnds) {
  EXPECT_EQ(trim(" \t\r\n\v\fa b\r\n "), "a b");
  EXPECT_EQ(trim("a"), "a");
  EXPECT_EQ(trim(" \r\n"), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\xC2\xA0x"), "\xC2\xA0x") << "non-ASCII space stays";
}

}  // namespace
}  // namespace cosim::util
