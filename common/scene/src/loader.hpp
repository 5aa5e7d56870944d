#pragma once
// Reads an XML scene folder into a SceneModel through SceneBuilder: the walk over projects,
// instances, joints and elements. Attribute values are parsed by xml_attributes.hpp; the
// model's own checks (names, refs, caps) are the builder's. Internal to cosim::scene.

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include <pugixml.hpp>

#include "cosim/scene/scene.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "xml_file.hpp"

namespace cosim::scene::detail {

class Loader {
 public:
  /// See SceneModel::load; `path` is a folder or an .xml file (readers.hpp). XML scenes have
  /// no package:// meshes: the options are not used.
  static SceneModel load(const std::filesystem::path& path, const LoadOptions& options);

 private:
  enum class Kind { robot, object, tool };

  explicit Loader(std::filesystem::path root);

  const XmlFile& open(const std::filesystem::path& file);
  void load_project(const std::filesystem::path& file);
  void instantiate(const XmlFile& file, pugi::xml_node el, Kind kind, int parent_frame,
                   int depth);
  void parse_body(const XmlFile& file, pugi::xml_node el, int frame, int depth);
  void parse_joint(const XmlFile& file, pugi::xml_node el, int parent_frame, int depth);
  void parse_link(const XmlFile& file, pugi::xml_node link, JointSpec& joint);
  void parse_drive(const XmlFile& file, pugi::xml_node el, JointSpec& joint);
  void parse_geometry(const XmlFile& file, pugi::xml_node el, int frame);
  void parse_assembly(const XmlFile& file, pugi::xml_node el, int frame);
  void parse_render(const XmlFile& file, pugi::xml_node el, int frame);
  void parse_probe(const XmlFile& file, pugi::xml_node el, int frame);
  Part parse_part(const XmlFile& file, pugi::xml_node el, double scale);

  std::filesystem::path root_;  // canonical scene folder
  SceneBuilder builder_;
  std::map<std::filesystem::path, std::unique_ptr<XmlFile>> files_;  // parsed once each
  std::vector<std::filesystem::path> stack_;  // instance files being expanded (recursion)
};

}  // namespace cosim::scene::detail
