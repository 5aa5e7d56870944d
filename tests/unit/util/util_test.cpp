#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#ifndef _WIN32
#include <unistd.h>
#endif

#include "cosim/platform/output_file.hpp"
#include "cosim/util/csv_writer.hpp"
#include "cosim/util/event_log.hpp"
#include "cosim/util/json_writer.hpp"
#include "cosim/util/stats.hpp"

namespace cosim::util {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CsvWriter, RoundTripsDoublesExactly) {
  const auto path = std::filesystem::temp_directory_path() / "cosim_util_csv_test.csv";
  const std::vector<std::string> columns{"t_s", "x_m"};
  const std::vector<double> values{0.1, 1.0 / 3.0, -2.5e-300, 123456789.125};
  {
    CsvWriter csv(path, columns);
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) csv.row(std::vector<double>{values[i], values[i + 1]});
    EXPECT_EQ(csv.rows(), 2u);
    EXPECT_THROW(csv.row(std::vector<double>{1.0}), std::invalid_argument);
  }
  std::istringstream in(slurp(path));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_s,x_m");
  std::vector<double> read;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) read.push_back(std::strtod(cell.c_str(), nullptr));
  }
  EXPECT_EQ(read, values);  // bitwise: shortest round-trip representation
  std::filesystem::remove(path);
}

TEST(CsvWriter, UnwritablePathNamesThePath) {
  try {
    CsvWriter csv("/nonexistent-dir/x.csv", std::vector<std::string>{"a"});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.csv"), std::string::npos);
  }
}

TEST(JsonWriter, EscapesAndNests) {
  JsonWriter json;
  const std::vector<std::string> names{"a\"b", "c\\d"};
  json.field("s", "line\nnext\x01").field("n", 1.5).field("i", 7).field("nan", std::nan(""));
  json.begin_object("o").field("b", true).field("names", std::span<const std::string>(names)).end_object();
  EXPECT_EQ(json.str(),
            "{\n  \"s\": \"line\\nnext\\u0001\",\n  \"n\": 1.5,\n  \"i\": 7,\n  \"nan\": null,\n  \"o\": {\n"
            "    \"b\": true,\n    \"names\": [\"a\\\"b\", \"c\\\\d\"]\n  }\n}\n");
}

#ifndef _WIN32
// Every file cosim writes into a folder is created without following a link: a link planted
// where an output goes (a shared run folder) is refused, one error naming the file, and its
// target is left as it was. (POSIX: O_NOFOLLOW; docs/security.md.)
TEST(NoLinkFollowed, EveryWriterRefusesALinkWhereItsFileGoes) {
  const auto dir = std::filesystem::temp_directory_path() / ("cosim_nofollow_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto target = dir / "precious.txt";
  { std::ofstream(target) << "keep me\n"; }
  const auto link_to_target = [&](const std::string& name) {
    std::filesystem::create_symlink(target, dir / name);
    return dir / name;
  };
  const auto expect_refused = [&](const std::string& what, const auto& write) {
    try {
      write();
      ADD_FAILURE() << what << ": wrote through the link";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("a symbolic link"), std::string::npos) << what << ": " << e.what();
    }
    EXPECT_EQ(slurp(target), "keep me\n") << what;
  };
  expect_refused("CsvWriter", [&] { CsvWriter csv(link_to_target("table.csv"), std::vector<std::string>{"a"}); });
  expect_refused("EventLog", [&] { EventLog log("test", link_to_target("run.log"), false); });
  expect_refused("JsonWriter's temporary", [&] {
    link_to_target("run.json.tmp");
    JsonWriter json;
    json.field("a", 1);
    json.write_file(dir / "run.json");
  });
  for (const char* mode : {"wb", "ab"}) {
    EXPECT_EQ(platform::open_file(link_to_target(std::string("f_") + mode), mode), nullptr) << mode;
    EXPECT_EQ(errno, ELOOP);
  }
  EXPECT_EQ(slurp(target), "keep me\n");
  // A link replaced by run.json's rename is the link itself, not its target.
  link_to_target("run2.json");
  JsonWriter json;
  json.field("a", 1);
  json.write_file(dir / "run2.json");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "run2.json"));
  EXPECT_EQ(slurp(target), "keep me\n");
  std::filesystem::remove_all(dir);
}
#endif

TEST(Stats, PercentilesByInterpolation) {
  std::vector<double> v;
  for (int i = 100; i >= 0; --i) v.push_back(i);
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 101u);
  EXPECT_DOUBLE_EQ(s.p50, 50.0);
  EXPECT_DOUBLE_EQ(s.p99, 99.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_DOUBLE_EQ(s.mean, 50.0);
  std::vector<double> two{1.0, 3.0};
  EXPECT_DOUBLE_EQ(summarize(two).p50, 2.0);
  std::vector<double> none;
  EXPECT_TRUE(std::isnan(summarize(none).p50));
}

}  // namespace
}  // namespace cosim::util
