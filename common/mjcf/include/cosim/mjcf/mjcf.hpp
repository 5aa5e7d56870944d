#pragma once
/// @file
/// A MuJoCo model (MJCF or URDF, Debian's libmujoco 2.2.2) as both sides of a run see it: the
/// `mujoco` backend steps it, the MJCF scene reader draws it. Both load it here, so they refuse
/// the same files with the same messages, and both name its joints by the one rule below, so
/// the backend's joints are the scene's driven joints by construction.
///
/// Joints to scene joints (dynamics_server/backends/mujoco/MODEL.md §2), scoped by the model's
/// name (`<mujoco model="Arm">`, a URDF's `<robot name>`):
///   hinge J, slide J  -> "Arm/J"                                     (one value, qpos − qpos0)
///   free J            -> "Arm/J/x", "/y", "/z", "/yaw", "/pitch", "/roll"
///   ball J            -> "Arm/J/yaw", "/pitch", "/roll"
/// The angles are those of R = Rz(yaw)·Ry(pitch)·Rx(roll) (yaw_pitch_roll_rad).

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct mjModel_;

namespace cosim::mjcf {

/// A model MuJoCo refused or that has no scene joints; the message names the file.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelDeleter {
  void operator()(mjModel_* m) const noexcept;
};
using ModelPtr = std::unique_ptr<mjModel_, ModelDeleter>;

/// Largest MJCF or URDF file read [bytes], checked before MuJoCo reads it.
inline constexpr std::uintmax_t kMaxModelFileBytes = 16u << 20;

/// How a model file is read.
struct LoadOptions {
  /// A URDF's package:// folders, before $COSIM_PACKAGE_PATH (util::PackagePath).
  std::vector<std::filesystem::path> package_path;
};

/// Loads `file` with MuJoCo's mj_loadXML. A `.urdf` file (any case) is first read as
/// urdf_for_mujoco says, so its meshes are the ones the URDF scene reader draws. Throws
/// ModelError "FILE: MuJoCo cannot load it: ..." (explain_load_error's text) or naming a file
/// that is missing or too large, a mesh path that does not resolve ("FILE:LINE: link 'L':
/// ..."), or a package-path folder that does not exist.
ModelPtr load_model(const std::filesystem::path& file, const LoadOptions& options = {});

/// What MuJoCo's URDF importer is told besides the mesh paths (<mujoco><compiler> in the URDF).
struct UrdfImport {
  /// discardvisual="false": visual geoms too (MuJoCo: group 1, no contacts). A visual whose
  /// mesh MuJoCo 2.2.2 cannot read (not .stl, .obj or .msh: COLLADA, PLY) is left out and
  /// named in `notes`.
  bool keep_visuals = false;
  bool keep_fixed_links = false;  ///< fusestatic="false": a link on a fixed joint stays a body of its own
  std::vector<std::string>* notes = nullptr;  ///< where to say what was left out (may be null)
};

/// The text of URDF `file` as MuJoCo 2.2.2 is given it: each <mesh filename> resolved as the
/// URDF scene reader resolves it (package://, file://, relative; docs/scenes.md) and written
/// absolute, and <mujoco><compiler strippath="false"> (MuJoCo would strip the folders), plus
/// `import`'s settings; the URDF's own <mujoco><compiler> settings are kept otherwise. Throws
/// ModelError "FILE:LINE: ..." for a mesh path that does not resolve, a floating joint with
/// an <origin> (MuJoCo's free joint is the world pose, the scene's floating joint is relative
/// to its origin: they would disagree) or malformed XML.
std::string urdf_for_mujoco(const std::filesystem::path& file, const LoadOptions& options,
                            const UrdfImport& import = {});

/// Loads model text `text` as if it were `file` (MuJoCo reads it from a virtual file system;
/// files it refers to are read from disk relative to `file`'s folder). Throws ModelError as
/// load_model does.
ModelPtr load_model_text(const std::filesystem::path& file, const std::string& text);

/// `error` (MuJoCo's text, on one line) with, where they apply, " (in FILE:LINE)" for an
/// element of an included file (MuJoCo 2.2 says "line 0" there) and a hint naming this
/// MuJoCo's version for the schema errors a model written for a newer MuJoCo gets.
std::string explain_load_error(const std::filesystem::path& model_file, std::string_view error);

/// MuJoCo's text, which spans lines, on one line (ours are one).
std::string one_line(std::string_view text);

/// Which part of a MuJoCo joint one scene joint is.
enum class JointPart : std::uint8_t {
  scalar = 1,     ///< hinge or slide: qpos[adr] − qpos0[adr]
  free_position,  ///< free joint: qpos[adr + axis], world x, y, z [m]
  free_angle,     ///< free joint: yaw, pitch or roll (axis 0..2) of the quaternion at qpos[adr + 3]
  ball_angle,     ///< ball joint: yaw, pitch or roll (axis 0..2) of the quaternion at qpos[adr]
};

/// One scene joint of a MuJoCo model.
struct SceneJoint {
  std::string name;       ///< scoped: "Arm/elbow", "Arm/base/yaw"
  int joint = -1;         ///< MuJoCo joint id
  int qpos_adr = -1;      ///< the joint's first qpos index
  JointPart part = JointPart::scalar;
  int axis = 0;           ///< free and ball parts: 0..2, in the order of the table above
  bool prismatic = false; ///< slide and free positions; hinge and every angle are revolute
};

/// The model's scene joints, in MuJoCo's joint order (each joint's parts in the table's order).
struct SceneJoints {
  std::string model_name;  ///< the scope: the model's name
  std::vector<SceneJoint> joints;
};

/// <custom> text of a model listing joints that are simulated but are not scene joints.
inline constexpr const char* kInternalJointsText = "cosim.internal_joints";

/// The data of the model's <custom><text name="`name`">, empty if it has none.
std::string model_text(const mjModel_* m, const char* name);

/// Maps the joints of `m`, loaded from `file` (named in messages). Throws ModelError for a
/// model or joint name that is not a scene name (joint names may be scoped by '/': a joint
/// "Wheel_1/roller1" is the scene joint "<model>/Wheel_1/roller1"), an unnamed joint, or a
/// model without joints. The joints kInternalJointsText lists are left out (a name it lists
/// that is not a joint of the model is a ModelError).
SceneJoints scene_joints(const mjModel_* m, const std::string& file);

/// Yaw, pitch, roll [rad] of a unit quaternion (w, x, y, z): R = Rz(yaw)·Ry(pitch)·Rx(roll),
/// intrinsic z-y'-x'', pitch in [-π/2, π/2]. The quaternion is normalised first.
std::array<double, 3> yaw_pitch_roll_rad(const std::array<double, 4>& quat_wxyz);

/// The scene name rule (docs/scenes.md "Names and scopes"): letters, digits, '_', '-', '.'
/// (not first); such names become path segments.
bool is_scene_name(std::string_view name);

}  // namespace cosim::mjcf
