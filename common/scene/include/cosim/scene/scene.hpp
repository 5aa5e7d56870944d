#pragma once
/// \file
/// The scene model: a scene (an XML scene, a URDF robot or a MuJoCo model, docs/scenes.md) read into an
/// immutable kinematic tree of frames, probes and render descriptions, plus the kinematics
/// that turn joint values into world transforms. Pure data: no VTK. Readers construct it with
/// SceneBuilder (cosim/scene/scene_builder.hpp), which checks every invariant stated here.
///
/// Notation (Drake monogram): X_AB is the pose of frame B in frame A, p_AP the position of
/// point P in frame A; W is the world. Lengths in metres, angles in radians.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <Eigen/Geometry>

#include "cosim/scene/color.hpp"
#include "cosim/scene/error.hpp"

namespace cosim::scene {

/// How a joint moves its child frame relative to the joint frame. Zero is not a valid value.
enum class DriveType : std::uint8_t { fixed = 1, revolute, prismatic };

/// One frame of the kinematic tree: one per `<joint>`, plus one root per robot/object/tool
/// instance. Child frame: X_PC = X_PJ · drive(q + offset) · X_DC.
struct Frame {
  /// Scoped name: joints "Robotino/Wheel_1/roller3"; instance roots "Robotino",
  /// "Robotino/Wheel_1".
  std::string name;
  /// Index of the parent in SceneModel::frames(), -1 = world. Parents come before children.
  int parent = -1;
  /// Parent frame -> joint frame: the `<pre>` list (an instance's `<base>` for roots).
  Eigen::Isometry3d X_PJ = Eigen::Isometry3d::Identity();
  DriveType drive = DriveType::fixed;
  /// Unit drive axis in the joint frame ((0, 0, 1) for fixed joints; unused there).
  Eigen::Vector3d axis_J = Eigen::Vector3d::UnitZ();
  /// Added to the joint value: [rad] for revolute, [m] for prismatic.
  double offset = 0;
  /// Drive frame -> child frame: the `<post>` list.
  Eigen::Isometry3d X_DC = Eigen::Isometry3d::Identity();
  /// Index into SceneModel::joint_names(), -1 if not driven (fixed, `driven="false"`, roots).
  int joint_index = -1;
  SourceLocation where;
};

/// A point fixed in a frame whose world position is reported.
struct Probe {
  /// Scoped name: "Robotino/chassis_bottom".
  std::string name;
  /// Index into SceneModel::frames().
  int frame = -1;
  /// Position in that frame [m].
  Eigen::Vector3d p_FP_m = Eigen::Vector3d::Zero();
  SourceLocation where;
  /// Placed by the reader, one per link or body (URDF links, MuJoCo bodies), rather than
  /// written by the scene's author (`<probe>`, a URDF's probes side file).
  bool generated = false;
};

// Geometry, dimensions in metres, centred on the element's local origin unless said otherwise.

/// Facets around a cylinder, cone, sphere or revolution: at least this many...
inline constexpr int kMinResolution = 3;
/// ...and at most this many.
inline constexpr int kMaxResolution = 1024;
/// Facets when the source gives none: around a cylinder, cone or revolution...
inline constexpr int kDefaultResolution = 32;
/// ...and around a sphere.
inline constexpr int kDefaultSphereResolution = 24;
/// Most probes one scene may have: each is reported for every frame (24 bytes on the wire,
/// 11 columns of probes.csv) and remembered for every frame in flight.
inline constexpr std::size_t kMaxProbes = 1000;
/// Most geometries the renders of a scene place in all (each becomes an actor on the visual side).
inline constexpr std::size_t kMaxPlacedGeometries = 100000;

/// Box with edge lengths along x, y, z [m], centred.
struct Cuboid {
  double lx, ly, lz;
};
/// Cylinder along `axis` ('x' | 'y' | 'z'), centred; `resolution` = facets around, in
/// [kMinResolution, kMaxResolution] like every resolution below.
struct Cylinder {
  double radius, height;
  char axis;
  int resolution;
};
/// Cone along `axis`: base disc at -height/2, apex at +height/2.
struct Cone {
  double radius, height;
  char axis;
  int resolution;
};
/// Sphere, centred; `resolution` = facets around (and half of it from pole to pole).
struct Sphere {
  double radius;
  int resolution;
};
/// Profile of (radius, axial position) points [m] swept 360° about `axis`; a profile that
/// starts and ends on the axis gives a closed solid.
struct Revolution {
  std::vector<Eigen::Vector2d> profile_m;
  char axis;
  int resolution;
};
/// How a mesh file is read (the visual side picks its reader by this). Zero is not a value.
enum class MeshFormat : std::uint8_t { stl = 1, obj, ply, dae };

/// Mesh file, already resolved to an absolute canonical path inside the scene root (or, for a
/// URDF scene, inside one of its package folders), scaled by `scale` (unitless, per axis of
/// the mesh; all three equal for an XML `<part>`) about its own origin.
struct Part {
  std::filesystem::path file;
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  MeshFormat format = MeshFormat::stl;
};
/// Triangles carried by the scene itself rather than a file: a MuJoCo model's meshes as MuJoCo
/// compiled them, an ellipsoid. Shared, read-only, by every geometry that uses them.
struct TriangleMesh {
  struct Data {
    std::vector<Eigen::Vector3f> vertices_m;    ///< [m], in the geometry's frame
    std::vector<std::array<int, 3>> triangles;  ///< indices into vertices_m, counter-clockwise from outside
  };
  std::shared_ptr<const Data> data;
};
using Shape = std::variant<Cuboid, Cylinder, Cone, Sphere, Revolution, Part, TriangleMesh>;

/// A geometry element. Not drawn by itself: a Render refers to it (directly or through an
/// Assembly).
struct Geometry {
  /// Scoped id: "<instance path>/<id>", e.g. "Robotino/Wheel_1/hub".
  std::string id;
  /// Frame the element was declared in (index into SceneModel::frames()).
  int frame = -1;
  Shape shape;
  /// Placement in that frame (the element's translate/rotate children).
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
  SourceLocation where;
};

/// What a ref resolves to.
enum class RefKind : std::uint8_t { geometry = 1, assembly };

/// A geometry placed relative to the frame of the assembly/render that (transitively) uses it.
struct PlacedGeometry {
  /// Index into SceneModel::geometries().
  int geometry = -1;
  /// Pose of the geometry in the using element's frame.
  Eigen::Isometry3d X_FG = Eigen::Isometry3d::Identity();
};

/// Groups geometries (and earlier assemblies) by id, with its own placement.
struct Assembly {
  /// Scoped id, like Geometry::id.
  std::string id;
  int frame = -1;
  /// Scoped ids of the members, in the order written.
  std::vector<std::string> refs;
  /// Placement in the frame (the assembly's translate/rotate children).
  Eigen::Isometry3d X_FA = Eigen::Isometry3d::Identity();
  SourceLocation where;
  /// Every member geometry, flattened: X_FG = X_FA · (member placement).
  std::vector<PlacedGeometry> parts;
};

/// One actor: a geometry or assembly drawn in a colour, attached to `frame`.
struct Render {
  /// Scoped id of the geometry or assembly drawn.
  std::string ref;
  /// The enclosing frame the actor moves with (index into SceneModel::frames()).
  int frame = -1;
  /// The CSS name when the colour was given by name (lower case), nullopt for "r g b".
  std::optional<std::string> color_name;
  Color rgb;
  /// 0 = invisible .. 1 = opaque.
  double opacity = 1;
  SourceLocation where;
  RefKind ref_kind = RefKind::geometry;
  /// Index into geometries() or assemblies(), per ref_kind.
  int ref_index = -1;
  /// Every geometry drawn, flattened, placed relative to `frame`.
  std::vector<PlacedGeometry> parts;
};

class SceneBuilder;

/// What SceneModel::load needs besides the path.
struct LoadOptions {
  /// Folders searched, in this order, for the package of a URDF mesh path
  /// "package://NAME/..." (the first holding a folder NAME wins); the folders of
  /// $COSIM_PACKAGE_PATH (':'-separated) are searched after these. XML scenes ignore it.
  std::vector<std::filesystem::path> package_path;
};

/// A scene read into an immutable kinematic tree (model apart from state: the caller owns the
/// joint values and the output buffers). Built only by SceneBuilder, so every SceneModel has
/// passed its checks.
class SceneModel {
 public:
  /// Reads the scene at `path` with the reader for its kind (src/readers.cpp): an XML scene,
  /// i.e. a scene folder holding exactly one project in projects/, or a project file
  /// (<scene>/projects/<name>.xml); or, in builds with urdfdom, a URDF file (*.urdf). Throws
  /// SceneError naming file and line; a path no reader accepts (missing, or e.g. a .txt file)
  /// is a SceneError naming the path and the accepted kinds.
  static SceneModel load(const std::filesystem::path& path, const LoadOptions& options = {});

  /// One kind of scene load() reads in this build (a row of the reader table, sorted by name).
  struct Kind {
    std::string_view name;   ///< "URDF", "XML scene"
    std::string_view takes;  ///< the paths it takes, as the error for an unknown kind lists them
  };
  static std::vector<Kind> kinds();

  /// Project name (a URDF scene: the robot's name).
  const std::string& name() const { return name_; }
  /// Scene folder (absolute, canonical; a URDF scene: the URDF file's folder).
  const std::filesystem::path& root() const { return root_; }

  std::span<const Frame> frames() const { return frames_; }
  /// Index of a frame by scoped name, -1 if absent.
  int find_frame(std::string_view scoped_name) const;

  /// Driven joints, scoped. Order: an instance's own joints in document order, then the
  /// instances it contains in document order (recursively), instances of the project in
  /// document order. For Robotino: x, y, phi, axle1..3, Wheel_1/roller1..6, Wheel_2/..., ...
  /// (SceneBuilder computes this order from the order elements were added.)
  std::span<const std::string> joint_names() const { return joint_names_; }
  /// Index into joint_names(), -1 if absent.
  int find_joint(std::string_view scoped_name) const;
  /// Index into frames() of each driven joint, in joint_names() order.
  std::span<const int> joint_frames() const { return joint_frames_; }

  std::span<const Probe> probes() const { return probes_; }
  /// The probes compared when a run names none (indices into probes(), in order): every probe
  /// the author wrote; in a scene with none, the first generated probe a driven joint moves —
  /// the base of a floating robot, an arm's first moving link — else the first probe; empty
  /// for a scene without probes.
  std::vector<int> default_probes() const;
  /// Whether a driven joint moves the frame (it or one of its ancestors is driven).
  bool frame_moves(int frame) const;
  /// Index into probes(), -1 if absent.
  int find_probe(std::string_view scoped_name) const;

  std::span<const Geometry> geometries() const { return geometries_; }
  std::span<const Assembly> assemblies() const { return assemblies_; }
  std::span<const Render> renders() const { return renders_; }

  /// World transform X_WF of every frame from joint values `q` [rad or m] in joint_names()
  /// order. Throws std::invalid_argument on a size mismatch ("expected 24 joint values, got
  /// 23") or a non-finite value. Does not allocate (except to throw).
  void world_transforms(std::span<const double> q, std::span<Eigen::Isometry3d> X_WF) const;

  /// World position p_WP [m] of every probe, from world_transforms()' output. Throws
  /// std::invalid_argument on a size mismatch. Does not allocate (except to throw).
  void probe_positions(std::span<const Eigen::Isometry3d> X_WF,
                       std::span<Eigen::Vector3d> p_WP) const;

 private:
  friend class SceneBuilder;  // the one constructor: it establishes the invariants above
  SceneModel() = default;

  std::string name_;
  std::filesystem::path root_;
  std::vector<Frame> frames_;
  std::vector<std::string> joint_names_;
  std::vector<int> joint_frames_;
  std::vector<Probe> probes_;
  std::vector<Geometry> geometries_;
  std::vector<Assembly> assemblies_;
  std::vector<Render> renders_;
  std::map<std::string, int, std::less<>> frame_index_, joint_index_, probe_index_;
};

}  // namespace cosim::scene
