#pragma once
/// \file
/// SceneBuilder: the one way to construct a SceneModel, for every scene reader (the XML
/// loader, the URDF reader) and for code and tests that make a scene without a file.
///
/// Elements are added in document order: parents before children, a geometry or assembly
/// before the assemblies and renders that name it. Names and ids are given unscoped ("elbow")
/// and the builder scopes them by instance ("Arm2/elbow"), so no reader can scope them
/// differently. Each add_* checks its element against what was added before and throws
/// SceneError at once, at the SourceLocation given with the element (so a reader's errors
/// come in document order, at the reader's file:line); build() checks what needs the whole
/// scene and numbers the driven joints.
///
/// Joint order (SceneModel::joint_names()) is computed, not given: an instance's own driven
/// joints in the order added, then the instances it contains in the order added
/// (recursively); top-level instances in the order added. A joint or instance belongs to the
/// instance of the frame it hangs from. For a single-instance source (one URDF robot) that is
/// simply the order add_joint was called.
///
/// Example (a one-joint arm):
///
///     SceneBuilder b;
///     b.set_name("Arm");
///     b.set_root("/abs/scene/folder");
///     const int arm = b.add_instance(-1, "Arm", Eigen::Isometry3d::Identity());
///     const int elbow = b.add_joint(arm, {.name = "elbow", .drive = DriveType::revolute,
///                                         .axis_J = Eigen::Vector3d::UnitY(), .driven = true});
///     b.add_probe(elbow, "tip", {0.5, 0, 0});
///     SceneModel model = std::move(b).build();  // joint_names() == {"Arm/elbow"}

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/scene/color.hpp"
#include "cosim/scene/error.hpp"
#include "cosim/scene/scene.hpp"

namespace cosim::scene {

/// Where an element given to SceneBuilder is written. Converts from the element's
/// SourceLocation; a reader that knows finer places (the XML reader: an attribute's own line)
/// also gives those of the element's name and refs, where errors about them are reported.
struct ElementLocation {
  ElementLocation() = default;
  /// Implicit on purpose: a reader that knows only the element passes its SourceLocation.
  ElementLocation(SourceLocation element_) : element(std::move(element_)) {}  // NOLINT
  ElementLocation(SourceLocation element_, SourceLocation name_, SourceLocation refs_ = {})
      : element(std::move(element_)), name(std::move(name_)), refs(std::move(refs_)) {}

  /// The element: stored as its `where`, and the place of every other error about it.
  SourceLocation element;
  /// Its name or id (duplicate or bad names); an empty file means `element`.
  SourceLocation name;
  /// Its ref or refs (unresolved refs); an empty file means `element`.
  SourceLocation refs;
};

// Every member of the specs has a default member initializer, so that designated
// initializers may leave any out without -Wmissing-field-initializers.

/// A joint frame as a reader gives it to SceneBuilder::add_joint. Child frame:
/// X_PC = X_PJ · drive(q + offset) · X_DC (see Frame).
struct JointSpec {
  /// Unscoped name ("roller3"): non-empty, without '/'.
  std::string name{};
  /// When one source joint becomes several frames (a URDF planar or floating joint "base"
  /// becomes "x", "y", "phi"), that joint's name: the scoped name is then
  /// "<instance path>/<group>/<name>" ("Rover/base/x"). Empty otherwise; else names like
  /// `name` joined by '/' (a MuJoCo joint "Wheel_1/roller1" is group "Wheel_1", name "roller1").
  std::string group{};
  /// Parent frame -> joint frame; finite and rigid.
  Eigen::Isometry3d X_PJ = Eigen::Isometry3d::Identity();
  DriveType drive = DriveType::fixed;
  /// Drive axis in the joint frame, unit length (within 1e-9). Leave (0, 0, 1) for fixed.
  Eigen::Vector3d axis_J = Eigen::Vector3d::UnitZ();
  /// Added to the joint value: [rad] revolute, [m] prismatic; finite. Leave 0 for fixed.
  double offset = 0;
  /// Drive frame -> child frame; finite and rigid.
  Eigen::Isometry3d X_DC = Eigen::Isometry3d::Identity();
  /// True: the joint takes a value (an entry of joint_names()). A fixed joint cannot be.
  bool driven = false;
  /// Where the joint is written (`element` is stored in Frame::where).
  ElementLocation where{};
};

/// A render as a reader gives it to SceneBuilder::add_render.
struct RenderSpec {
  /// Unscoped id of a geometry or assembly added earlier in the same instance.
  std::string ref{};
  /// Each channel in [0, 1].
  Color rgb{};
  /// Lower-case CSS name when the colour was given by name; must be the name of `rgb`.
  std::optional<std::string> color_name{};
  /// 0 = invisible .. 1 = opaque.
  double opacity = 1;
  ElementLocation where{};
};

/// Builds a SceneModel element by element, checking each (see the file comment). Every
/// add_* returns the new element's index in the SceneModel (frames(), geometries(),
/// assemblies(), renders(), probes()), or throws SceneError on bad input and adds nothing.
class SceneBuilder {
 public:
  SceneBuilder() = default;

  /// Scene (project) name: non-empty. Required before build().
  void set_name(std::string name);
  /// Scene folder, absolute (canonical for XML scenes): every Part file must lie inside it
  /// or inside a folder given to add_mesh_folder. Required before build().
  void set_root(std::filesystem::path root);
  /// Another folder, absolute, Part files may lie in (a URDF scene's package folders).
  void add_mesh_folder(std::filesystem::path folder);

  /// A robot/object/tool instance: its root frame hangs from `parent_frame` (-1 = world) at
  /// X_PB (the instance's base placement). Its scoped name is `name` at top level, else
  /// "<path of the enclosing instance>/<name>". Returns the frame index.
  int add_instance(int parent_frame, std::string_view name, const Eigen::Isometry3d& X_PB,
                   ElementLocation where = {});
  /// A joint frame hanging from `parent_frame` (an instance root or a joint, already added).
  /// Scoped name: "<instance path>/<name>" ("<instance path>/<group>/<name>" in a group).
  /// Returns the frame index.
  int add_joint(int parent_frame, JointSpec joint);

  /// A geometry in `frame`, placed at X_FG; dimensions finite and > 0, axis 'x'|'y'|'z',
  /// resolution in [kMinResolution, kMaxResolution], a revolution profile of >= 2 points
  /// with r >= 0, a Part file absolute with each scale factor finite and > 0. `id` is unique
  /// in the frame's instance. Returns the index into geometries().
  int add_geometry(int frame, std::string_view id, Shape shape, const Eigen::Isometry3d& X_FG,
                   ElementLocation where = {});
  /// An assembly in `frame` grouping `refs` (>= 1 unscoped ids of geometries or assemblies
  /// added earlier in the same instance), placed at X_FA. Returns the index into assemblies().
  int add_assembly(int frame, std::string_view id, std::span<const std::string_view> refs,
                   const Eigen::Isometry3d& X_FA, ElementLocation where = {});
  /// An actor attached to `frame`. Returns the index into renders().
  int add_render(int frame, RenderSpec render);
  /// A probe at p_FP_m [m] in `frame`; scoped name unique in the scene. `generated`: placed
  /// by the reader at a link or body rather than written by the author (Probe::generated).
  /// Returns the index into probes().
  int add_probe(int frame, std::string_view name, const Eigen::Vector3d& p_FP_m,
                ElementLocation where = {}, bool generated = false);

  /// Checks the scene as a whole (name and root set, Part files inside the root or a mesh
  /// folder), numbers the driven joints (order in the file comment) and hands over the model.
  SceneModel build() &&;

 private:
  // One robot/object/tool instance: its scoped path, own driven joints, contained instances.
  struct Instance {
    std::string path;
    std::vector<int> joint_frames;
    std::vector<int> children;
  };
  struct IdEntry {
    RefKind kind;
    int index;
  };

  int check_frame(int frame, std::string_view what, std::string_view name,
                  const SourceLocation& where) const;
  int push_frame(Frame frame, int instance, const char* what, const SourceLocation& name_where);
  void check_element_cap(const SourceLocation& where) const;
  const IdEntry& resolve(int instance, std::string_view ref, const char* why,
                         const SourceLocation& where) const;
  void add_id(int instance, std::string_view id, RefKind kind, int index,
              const SourceLocation& where);

  SceneModel model_;
  std::vector<std::filesystem::path> mesh_folders_;  // besides the root (add_mesh_folder)
  std::vector<int> frame_instance_;  // per frame: index into instances_
  std::vector<Instance> instances_;
  std::vector<int> top_instances_;   // instances hanging from the world, in the order added
  std::map<std::string, IdEntry, std::less<>> ids_;  // scoped geometry/assembly id -> element
  std::size_t elements_ = 0;  // geometries + assemblies + renders + probes so far (capped)
  std::size_t placed_ = 0;    // geometries placed by all assemblies and renders so far (capped)
};

}  // namespace cosim::scene
