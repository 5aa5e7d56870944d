#pragma once
// The scene readers SceneModel::load chooses from, by the kind of path it is given. Internal
// to cosim::scene. Adding a source format = one reader file defining its SceneReader
// constant, its declaration below, and one line in the table in readers.cpp.

#include <filesystem>
#include <span>
#include <string_view>

#include "cosim/scene/scene.hpp"

namespace cosim::scene::detail {

/// One kind of scene source.
struct SceneReader {
  /// Short kind name: "XML scene".
  std::string_view name;
  /// The paths it takes, for the message listing the accepted kinds.
  std::string_view takes;
  /// True if `path` is of this kind: by what it is (folder, extension) and, for .xml files,
  /// the name of the root element (xml_root_element), never by parsing it. The kinds of the
  /// table must not overlap.
  bool (*accepts)(const std::filesystem::path& path);
  /// Reads the scene; throws SceneError naming file and line.
  SceneModel (*read)(const std::filesystem::path& path, const LoadOptions& options);
};

#if COSIM_HAVE_MUJOCO
/// A MuJoCo model: an .xml file whose root element is <mujoco> (mjcf_reader.cpp; only in
/// builds with MuJoCo).
extern const SceneReader kMjcfSceneReader;
#endif
#if COSIM_HAVE_URDF
/// A URDF robot: a regular *.urdf file (urdf_reader.cpp; only in builds with urdfdom).
extern const SceneReader kUrdfSceneReader;
#endif
/// The XML scene: a scene folder holding projects/, or an .xml file whose root element is not
/// <mujoco> (loader.cpp).
extern const SceneReader kXmlSceneReader;

/// Every reader, sorted by name.
std::span<const SceneReader* const> scene_readers();

}  // namespace cosim::scene::detail
