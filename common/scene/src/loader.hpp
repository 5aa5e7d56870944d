#pragma once
// Builds a SceneModel from the XML files of a scene folder. Internal to cosim::scene.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "cosim/scene/scene.hpp"
#include "xml_file.hpp"

namespace cosim::scene::detail {

class Loader {
 public:
  /// See SceneModel::load.
  static SceneModel load(const std::filesystem::path& path);

 private:
  enum class Kind { robot, object, tool };

  // One robot/object/tool instance: its own driven joints and the instances it contains.
  struct Instance {
    std::vector<int> joint_frames;
    std::vector<int> children;
  };
  struct IdEntry {
    RefKind kind;
    int index;
  };
  // What the body of one instance file sees while it is parsed.
  struct Scope {
    const XmlFile* file;
    std::string path;  // scoped instance name: "Robotino/Wheel_1"
    int instance;      // index into instances_
    std::map<std::string, IdEntry, std::less<>> ids;  // unscoped id -> element
  };

  explicit Loader(std::filesystem::path root) : root_(std::move(root)) {}

  const XmlFile& open(const std::filesystem::path& file);
  void load_project(const std::filesystem::path& file);
  void instantiate(const XmlFile& file, pugi::xml_node el, Kind kind, int parent_frame,
                   const std::string& parent_path, int parent_instance, int depth);
  void parse_body(Scope& scope, pugi::xml_node el, int frame, int depth);
  void parse_joint(Scope& scope, pugi::xml_node el, int parent_frame, int depth);
  void parse_link(const XmlFile& file, pugi::xml_node link, Frame& frame, bool& driven);
  void parse_drive(const XmlFile& file, pugi::xml_node el, Frame& frame, bool& driven);
  void parse_geometry(Scope& scope, pugi::xml_node el, int frame);
  void parse_assembly(Scope& scope, pugi::xml_node el, int frame);
  void parse_render(Scope& scope, pugi::xml_node el, int frame);
  void parse_probe(Scope& scope, pugi::xml_node el, int frame);
  Part parse_part(const XmlFile& file, pugi::xml_node el, double scale);
  void count_element(const XmlFile& file, pugi::xml_node el);
  int add_frame(const XmlFile& file, pugi::xml_node el, Frame frame, const char* what);
  void add_id(Scope& scope, pugi::xml_node el, std::string_view id, RefKind kind, int index);
  void order_joints(int instance);

  std::filesystem::path root_;  // canonical scene folder
  SceneModel model_;
  std::map<std::filesystem::path, std::unique_ptr<XmlFile>> files_;  // parsed once each
  std::vector<std::filesystem::path> stack_;  // instance files being expanded (recursion)
  std::vector<Instance> instances_;
  std::vector<int> top_instances_;
  std::size_t elements_ = 0;  // geometry/assembly/render/probe elements so far (capped)
  std::size_t placed_ = 0;  // geometries placed by assemblies and renders so far (capped)
};

}  // namespace cosim::scene::detail
