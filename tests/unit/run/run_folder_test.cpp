// The run folder: named and created in one place, for cosim-dynamics and the launcher alike.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cosim/run/run_folder.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::run {
namespace {

namespace fs = std::filesystem;

class RunFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("cosim_run_folder_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(RunFolderTest, DefaultNameIsUnderRunsWithTheBackend) {
  const fs::path dir = default_run_dir("mecanum4");
  EXPECT_EQ(dir.parent_path(), fs::path("runs"));
  const std::string name = dir.filename().string();
  // <UTC yyyymmddThhmmssZ>-<backend>
  ASSERT_EQ(name.size(), std::string("20261127T110000Z-mecanum4").size()) << name;
  EXPECT_EQ(name[8], 'T');
  EXPECT_EQ(name.substr(15), "Z-mecanum4");
}

TEST_F(RunFolderTest, NewFoldersOfOneNameAreNumbered) {
  const fs::path base = root_ / "runs" / "20261127T110000Z-robotino";
  EXPECT_EQ(create_new_run_folder(base).dir, base);
  EXPECT_EQ(create_new_run_folder(base).dir, fs::path(base.string() + "-2"));
  EXPECT_EQ(create_new_run_folder(base).dir, fs::path(base.string() + "-3"));
  EXPECT_TRUE(fs::is_directory(base.string() + "-3"));
}

TEST_F(RunFolderTest, OutTakesAnEmptyFolderAndRefusesOneHoldingARun) {
  const RunFolder made = create_run_folder(root_ / "a" / "b");
  EXPECT_TRUE(fs::is_directory(made.dir));
  EXPECT_EQ(made.run_json(), root_ / "a" / "b" / "run.json");
  EXPECT_EQ(create_run_folder(made.dir).dir, made.dir);  // the launcher's empty folder
  std::ofstream(made.dynamics_csv()) << "t_s\n";
  EXPECT_THROW(create_run_folder(made.dir), util::BadInputError);
  std::ofstream(root_ / "file") << "x";
  try {
    create_run_folder(root_ / "file");
    FAIL();
  } catch (const util::BadInputError& e) {
    EXPECT_NE(std::string(e.what()).find("exists and is not a directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cosim::run
