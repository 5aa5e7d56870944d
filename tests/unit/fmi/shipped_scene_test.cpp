// The scene an FMU ships (resources/cosim/scene/), unpacked into the user's cache: the files as
// in the archive, one copy for the same scene, none for an FMU without one.
#include "cosim/fmi/shipped_scene.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cosim/fmi/zip_writer.hpp"
#include "cosim/test/scratch_dir.hpp"

namespace cosim::fmi {
namespace {

namespace fs = std::filesystem;

void set_env(const char* name, const std::string& value) {
#ifdef _WIN32
  _putenv_s(name, value.c_str());
#else
  setenv(name, value.c_str(), 1);
#endif
}

// The cache in the test's folder, never the user's.
class ShippedScene : public test::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    set_env("COSIM_CACHE_DIR", (dir_ / "cache").string());
  }
  void TearDown() override {
    set_env("COSIM_CACHE_DIR", "");
    ScratchDirTest::TearDown();
  }
  fs::path fmu(const std::string& name, bool with_scene, const std::string& project = "<project name=\"P\"/>\n") {
    const fs::path file = dir_ / name;
    ZipWriter zip(file);
    zip.add("modelDescription.xml", "<fmiModelDescription/>\n");
    if (with_scene) {
      zip.add("resources/cosim/scene/projects/P.xml", project);
      zip.add("resources/cosim/scene/meshes/part.stl", std::string(1000, 'x'));
    }
    zip.add("resources/other.txt", "not the scene\n");
    zip.finish();
    return file;
  }
};

std::string scene_file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(ShippedScene, ItsFilesAreUnpackedIntoTheCacheOnce) {
  const auto scene = shipped_scene(fmu("a.fmu", true));
  ASSERT_TRUE(scene.has_value());
  EXPECT_EQ(scene->parent_path(), dir_ / "cache" / "fmu-scenes");
  EXPECT_EQ(scene_file_bytes(*scene / "projects" / "P.xml"), "<project name=\"P\"/>\n");
  EXPECT_EQ(scene_file_bytes(*scene / "meshes" / "part.stl"), std::string(1000, 'x'));
  EXPECT_FALSE(fs::exists(*scene / "other.txt"));
  // Another FMU with the same scene: the same copy, not unpacked again.
  fs::remove(*scene / "meshes" / "part.stl");
  EXPECT_EQ(shipped_scene(fmu("b.fmu", true)), scene);
  EXPECT_FALSE(fs::exists(*scene / "meshes" / "part.stl")) << "the cached copy was taken as it is";
  // A different scene: a copy of its own. Nothing partial is left beside them.
  const auto other = shipped_scene(fmu("c.fmu", true, "<project name=\"Q\"/>\n"));
  ASSERT_TRUE(other.has_value());
  EXPECT_NE(*other, *scene);
  for (const auto& entry : fs::directory_iterator(dir_ / "cache" / "fmu-scenes")) {
    EXPECT_EQ(entry.path().filename().string().find(".partial"), std::string::npos) << entry.path();
  }
}

TEST_F(ShippedScene, AnFmuWithoutOneShipsNone) {
  EXPECT_EQ(shipped_scene(fmu("none.fmu", false)), std::nullopt);
  EXPECT_FALSE(fs::exists(dir_ / "cache")) << "nothing made for nothing";
}

}  // namespace
}  // namespace cosim::fmi
