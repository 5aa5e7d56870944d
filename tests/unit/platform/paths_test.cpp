// replace_file: a whole file or the old one, never half of one, never written through a link.
#include "cosim/platform/paths.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace cosim::platform {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class PlatformReplaceFile : public ::testing::Test {
 protected:
  PlatformReplaceFile() : dir_(make_private_temp_dir("cosim-replace-file.")) {}
  ~PlatformReplaceFile() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(PlatformReplaceFile, WritesANewFileAndReplacesAnOldOneLeavingNoPartialFile) {
  const fs::path file = dir_ / "results.csv";
  ASSERT_FALSE(replace_file(file, "first\n"));
  EXPECT_EQ(read(file), "first\n");
  ASSERT_FALSE(replace_file(file, std::string(100000, 'x')));
  EXPECT_EQ(read(file).size(), 100000u);
  EXPECT_FALSE(fs::exists(dir_ / "results.csv.partial"));
}

TEST_F(PlatformReplaceFile, AFolderItCannotWriteInIsAnErrorAndTheOldFileStays) {
  const fs::path file = dir_ / "kept.txt";
  ASSERT_FALSE(replace_file(file, "old"));
  EXPECT_TRUE(replace_file(dir_ / "no" / "such" / "folder" / "x.txt", "text")) << "an error, not a throw";
  // The partial name taken by a folder: the write fails and the old file is as it was.
  fs::create_directory(dir_ / "kept.txt.partial");
  fs::create_directory(dir_ / "kept.txt.partial" / "inside");
  EXPECT_TRUE(replace_file(file, "new"));
  EXPECT_EQ(read(file), "old");
}

#ifndef _WIN32  // symbolic links need a privilege on Windows
TEST_F(PlatformReplaceFile, ALinkLeftAtThePartialNameIsRemovedNotWrittenThrough) {
  const fs::path target = dir_ / "someone_elses.txt";
  std::ofstream(target) << "theirs";
  fs::create_symlink(target, dir_ / "mine.txt.partial");
  ASSERT_FALSE(replace_file(dir_ / "mine.txt", "ours"));
  EXPECT_EQ(read(target), "theirs");
  EXPECT_EQ(read(dir_ / "mine.txt"), "ours");
}
#endif

}  // namespace
}  // namespace cosim::platform
