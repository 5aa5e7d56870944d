// One fixture scene per error kind (tests/data/scenes/bad_*): each error names the exact file
// and line, and says what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <unistd.h>

#include "cosim/scene/scene.hpp"
#include "scene_test_support.hpp"

namespace {

using cosim::scene::SceneError;
using cosim::scene::SceneModel;
using namespace cosim::scene::test;

// Loads `fixture` and checks the error: file (relative to the fixture), line, message part.
void expect_error(const std::string& fixture, const std::string& file, int line,
                  const std::string& message_part) {
  const fs::path dir = fixtures_dir() / fixture;
  // Preferred separators: `file` is written with '/', messages on Windows use '\\'.
  expect_scene_error(dir, (fs::canonical(dir) / file).make_preferred(), line, message_part);
}

TEST(SceneErrors, MalformedXml) {
  expect_error("bad_malformed", "robots/R.xml", 5, "malformed XML: ");
}
TEST(SceneErrors, UnknownElement) {
  expect_error("bad_unknown_element", "robots/R.xml", 6, "unknown element <widget> in <joint>");
}
TEST(SceneErrors, UnknownAttributeOnItsOwnLine) {
  expect_error("bad_unknown_attribute", "robots/R.xml", 3,
               "unknown attribute 'colour' on <cuboid>");
}
TEST(SceneErrors, UnknownAttributeForTheDriveType) {
  expect_error("bad_drive_attribute", "robots/R.xml", 4,
               "unknown attribute 'deg' on a prismatic <drive>");
}
TEST(SceneErrors, MissingRequiredAttribute) {
  expect_error("bad_missing_attribute", "robots/R.xml", 6,
               "missing required attribute 'height' on <cylinder>");
}
TEST(SceneErrors, DuplicateId) {
  expect_error("bad_duplicate_id", "robots/R.xml", 4, "duplicate id 'c' in instance 'R' (first at ");
}
TEST(SceneErrors, DuplicateJointNameAfterScoping) {
  expect_error("bad_duplicate_joint", "robots/R.xml", 12, "duplicate joint name 'R/b' (first at ");
}
TEST(SceneErrors, UnresolvedRenderRef) {
  expect_error("bad_unresolved_ref", "robots/R.xml", 4, "unresolved ref 'nope' in instance 'R'");
}
TEST(SceneErrors, UnresolvedAssemblyRefDefinedLater) {
  expect_error("bad_unresolved_assembly_ref", "robots/R.xml", 4, "unresolved ref 'later'");
}
TEST(SceneErrors, MissingRobotFile) {
  expect_error("bad_missing_robot", "projects/P.xml", 3, "robot file not found: ");
}
TEST(SceneErrors, MissingObjectFile) {
  expect_error("bad_missing_object", "robots/R.xml", 6, "object file not found: ");
}
TEST(SceneErrors, MissingToolFile) {
  expect_error("bad_missing_tool", "projects/P.xml", 3, "tool file not found: ");
}
TEST(SceneErrors, MissingMeshFile) {
  expect_error("bad_missing_mesh", "robots/R.xml", 2, "mesh file not found: ");
}
TEST(SceneErrors, MeshOutsideRootByDotDot) {
  expect_error("bad_mesh_outside", "robots/R.xml", 3, "outside the scene root");
}
// The fixtures' symlinks are POSIX ones; Wine shows them to a Windows program as the files
// they point to, so there is nothing to refuse there.
#define COSIM_SKIP_WITHOUT_POSIX_SYMLINKS() \
  if (!COSIM_TEST_POSIX_SYMLINKS) GTEST_SKIP() << "POSIX symlinks in the fixtures are plain files to a Windows build"

TEST(SceneErrors, MeshOutsideRootBySymlink) {
  COSIM_SKIP_WITHOUT_POSIX_SYMLINKS();
  expect_error("bad_mesh_symlink", "robots/R.xml", 2, "outside the scene root");
}
TEST(SceneErrors, ObjectOutsideRootBySymlink) {
  COSIM_SKIP_WITHOUT_POSIX_SYMLINKS();
  expect_error("bad_object_symlink", "robots/R.xml", 6, "outside the scene root");
}
TEST(SceneErrors, ObjectFileThatIsNotAFile) {
  expect_error("bad_object_not_file", "robots/R.xml", 6, "is not a regular file");
}
TEST(SceneErrors, BadNumberText) {
  expect_error("bad_number_text", "robots/R.xml", 2, "bad number 'abc' in attribute 'lx'");
}
TEST(SceneErrors, BadNumberOutOfRange) {
  expect_error("bad_number_range", "robots/R.xml", 3, "bad number '1e999' in attribute 'radius'");
}
TEST(SceneErrors, BadNumberNaN) {
  expect_error("bad_number_nan", "robots/R.xml", 3, "bad number 'NaN' in attribute 'y'");
}
TEST(SceneErrors, BadNumberNegativeRadius) {
  expect_error("bad_number_negative", "robots/R.xml", 2,
               "bad number '-0.1' in attribute 'radius': must be > 0");
}
TEST(SceneErrors, UnknownColourName) {
  expect_error("bad_color_name", "robots/R.xml", 3, "unknown colour name 'blurple'");
}
TEST(SceneErrors, ColourComponentOutOfRange) {
  expect_error("bad_color_rgb", "robots/R.xml", 3, "bad colour '0.5 1.5 0'");
}
TEST(SceneErrors, BadAxis) {
  expect_error("bad_axis", "robots/R.xml", 4, "bad axis 'w'");
}
TEST(SceneErrors, ZeroAxis) {
  expect_error("bad_axis_zero", "robots/R.xml", 5, "bad axis '0 0 0'");
}
TEST(SceneErrors, BothDegAndRad) {
  expect_error("bad_deg_and_rad", "robots/R.xml", 5, "both deg and rad");
}
TEST(SceneErrors, NeitherDegNorRad) {
  expect_error("bad_no_angle", "robots/R.xml", 4, "missing required attribute 'deg' or 'rad'");
}
TEST(SceneErrors, ObjectRecursion) {
  expect_error("bad_recursion", "objects/Loop.xml", 6,
               "object recursion: Loop.xml instantiates itself (R -> Loop -> Loop)");
}
TEST(SceneErrors, RootNameMustMatchFileName) {
  expect_error("bad_root_name", "robots/R.xml", 1, "name 'Q' does not match the file name 'R.xml'");
}
TEST(SceneErrors, TextIsNotIgnored) {
  expect_error("bad_text", "robots/R.xml", 6, "unexpected text inside <joint>");
}
TEST(SceneErrors, LinkMustBeFirst) {
  expect_error("bad_link_first", "robots/R.xml", 3, "the first child of <joint> must be <link>");
}
TEST(SceneErrors, FolderWithTwoProjects) {
  expect_error("bad_two_projects", "projects", 0, "2 project files (A.xml, B.xml)");
}
TEST(SceneErrors, FolderWithoutProject) {
  expect_error("bad_no_project", "projects", 0, "no project file");
}

TEST(SceneErrors, AssemblyBlowUpIsCapped) {
  expect_error("bad_assembly_blowup", "robots/R.xml", 18,
               "assemblies place more than 100000 geometries in total");
}

TEST(SceneErrors, NoSuchPath) {
  EXPECT_THROW(SceneModel::load(fixtures_dir() / "does_not_exist"), SceneError);
}

// A scratch scene folder in the temp directory, removed at the end.
struct TempScene {
  explicit TempScene(const std::string& tag)
      : dir(fs::temp_directory_path() / ("cosim_scene_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir / "projects");
    fs::create_directories(dir / "robots");
    std::ofstream(dir / "projects/P.xml") << "<project name=\"P\"><robot name=\"R\"/></project>\n";
  }
  ~TempScene() { fs::remove_all(dir); }
  fs::path dir;
};

// The size cap is checked before reading: a 16 MiB + 1 byte robot file is refused.
TEST(SceneErrors, FileAboveSizeCap) {
  TempScene scene("big");
  {
    std::ofstream big(scene.dir / "robots/R.xml", std::ios::binary);
    big << "<robot name=\"R\">";
    big << std::string((16u << 20) + 1 - 16 - 8, ' ');
    big << "</robot>";
  }
  ASSERT_EQ(fs::file_size(scene.dir / "robots/R.xml"), (16u << 20) + 1);
  try {
    SceneModel::load(scene.dir);
    ADD_FAILURE() << "loaded a file above the cap";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().file, fs::canonical(scene.dir) / "robots/R.xml");
    EXPECT_EQ(e.where().line, 0);
    EXPECT_NE(std::string(e.what()).find("above the 16 MiB limit"), std::string::npos) << e.what();
  }
}

// Nesting is bounded (the loader recurses): of 200 nested joints, the 128th (line 129) is
// refused, the robot itself being the first level.
TEST(SceneErrors, NestingDepthIsCapped) {
  TempScene scene("deep");
  {
    std::ofstream out(scene.dir / "robots/R.xml");
    out << "<robot name=\"R\">\n";
    for (int i = 0; i < 200; ++i) {
      out << "<joint name=\"j" << i << "\"><link><drive type=\"fixed\"/></link>\n";
    }
    for (int i = 0; i < 200; ++i) out << "</joint>";
    out << "\n</robot>\n";
  }
  try {
    SceneModel::load(scene.dir);
    ADD_FAILURE() << "loaded 200 nested joints";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.where().line, 129) << e.what();
    EXPECT_NE(std::string(e.what()).find("nesting deeper than 128"), std::string::npos) << e.what();
  }
}

}  // namespace
