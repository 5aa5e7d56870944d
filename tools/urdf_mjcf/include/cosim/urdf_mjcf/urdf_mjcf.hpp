#pragma once
/// @file
/// A URDF robot as an MJCF model for the `mujoco` backend, by MuJoCo's own URDF importer plus
/// what a URDF cannot say: a floating base, a floor, servos on named joints, a timestep.
/// The result is a model of one's own to edit (friction, gains, sensors), drawn by the MJCF
/// scene reader from what MuJoCo compiled (dynamics_server/backends/mujoco/MODEL.md §10).

#include <array>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cosim::urdf_mjcf {

/// A bad option, or a URDF MuJoCo cannot use (the message names the file or the joint).
class ConvertError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A servo on one URDF joint (revolute, continuous or prismatic).
struct Servo {
  enum class Kind { position, velocity };
  std::string joint;
  Kind kind = Kind::position;
  double gain = 0.0;     ///< kp [N·m/rad or N/m] (position), kv [N·m·s/rad or N·s/m] (velocity); > 0
  double damping = 0.0;  ///< joint damping added with a position servo [N·m·s/rad or N·s/m]; ≥ 0
};

/// Parses "JOINT=KP[,DAMPING]" (position) or "JOINT=KV" (velocity). Throws ConvertError.
Servo parse_servo(const std::string& text, Servo::Kind kind);

struct Options {
  std::vector<std::filesystem::path> package_path;  ///< package:// folders, before $COSIM_PACKAGE_PATH
  bool floating_base = false;             ///< a free joint "floating_base" on the root link
  std::array<double, 3> base_xyz_m{};     ///< the root link's start position in the world [m]
  bool floor = false;                     ///< a plane "floor" at z = 0
  std::vector<Servo> servos;
  std::optional<double> timestep_s;       ///< MuJoCo's <option timestep> [s]; MuJoCo's 2 ms if unset
  std::filesystem::path output_folder;    ///< mesh paths are written relative to it; absolute if empty
};

/// Name of the free joint Options::floating_base adds.
inline constexpr const char* kFloatingBaseJoint = "floating_base";

/// The MJCF text. Visual geoms are drawn (group 1, no contacts), collision geoms collide and
/// are not drawn (group 3); every link stays a body (fusestatic off), so each has its probe.
/// A visual mesh MuJoCo cannot read (COLLADA, PLY) is left out and said in `notes` (may be
/// null). Throws ConvertError, or mjcf::ModelError for what MuJoCo refuses.
std::string urdf_to_mjcf(const std::filesystem::path& urdf_file, const Options& options,
                         std::vector<std::string>* notes = nullptr);

}  // namespace cosim::urdf_mjcf
