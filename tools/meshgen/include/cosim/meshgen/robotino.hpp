#pragma once
/// \file
/// The Robotino's parts that are not primitives (seed 000 §2.4, Figs. 7, 9): chassis, bumper,
/// infrared distance sensor, camera (housing, lens glass) and the omni wheel's roller
/// supporter, built from the dimensions below and written to scenes/robotino/meshes/.
///
/// Frames (as in scenes/robotino): robot frame at the centre of the chassis bottom, x = heading
/// (towards the camera), z up, wheels at 60°, 180° and -60° about z. Wheel frame at the wheel
/// centre, x along the axle pointing away from the robot; roller j (j = 0..5) at angle
/// j·60° about x, its axis tangent (local y) at radius Rw - r_max, at x = +0.012 m (even j,
/// front group) or -0.012 m (odd j, back group). Sensor and camera meshes have frames of their
/// own; the scene places them (see each function).

#include <string>
#include <vector>

#include "cosim/meshgen/mesh.hpp"

namespace cosim::meshgen::robotino {

// Shared with the scene and the dynamics backends (DESIGN.md "Backends": Robotino defaults).
inline constexpr double kWheelDistance = 0.132;  // chassis centre to wheel centre, R [m]
inline constexpr double kWheelHeight = 0.020;    // wheel centre above the chassis bottom [m]
inline constexpr double kWheelAnglesDeg[3] = {60, 180, -60};
inline constexpr double kRw = 0.040;                      // wheel radius [m]
inline constexpr double kRmax = 0.012;                    // roller radius at its middle [m]
inline constexpr double kRollerAxisRadius = kRw - kRmax;  // 0.028 m
inline constexpr double kRollerGroupX = 0.012;            // |x| of the roller groups [m]
inline constexpr double kRollerHalfLength = 0.021;        // [m]

// Where the scene puts the parts with frames of their own (robot frame).
inline constexpr int kSensorCount = 9;          // 40° apart, the first at 0° (heading)
inline constexpr double kSensorRadius = 0.172;  // on the base wall [m]
inline constexpr double kSensorHeight = 0.052;  // sensor centre above the chassis bottom [m]
inline constexpr double kCameraX = 0.110;       // mast foot, on top of the upper body [m]
inline constexpr double kCameraZ = 0.150;

/// Chassis, robot frame: a base 0..0.068 m high, radius 0.172 m, with a recess for each wheel
/// (0.09 m wide, open from 0.094 m out; the wheel's hub ends on its back wall); a deck plate
/// of radius 0.184 m over the wheels, 0.068..0.086 m; a slightly tapered rounded-triangle
/// upper body, 0.086..0.150 m. Edges rounded. Three closed shells.
Mesh chassis();

/// Bumper ring, robot frame: rounded-rectangle profile r = 0.1725..0.196 m, z = 0.002..0.036 m,
/// swept about z. One closed shell (genus 1).
Mesh bumper();

/// Infrared distance sensor, own frame: x out of the wall (its back 3 mm inside the wall),
/// z up, centred on the sensor. Rounded housing 12 mm wide, 28 mm high, with the emitter and
/// detector lenses stacked vertically. Placed at kSensorRadius, kSensorHeight.
Mesh ir_sensor();

/// Camera, own frame: origin at the foot of its mast, x = viewing direction, z up. Mast,
/// rounded housing and lens barrel. Placed at (kCameraX, 0, kCameraZ). Written as ASCII STL.
Mesh camera();

/// The camera's lens glass (a shallow dome inside the barrel), camera frame.
Mesh camera_lens();

/// Omni wheel roller supporter, wheel frame: one plate per roller group whose three arms
/// reach between the rollers' ends to hold their axles, a hub through both plates and a boss
/// towards the robot. Clear of every roller by construction and inside a radius of 0.0375 m,
/// so it never touches the floor.
Mesh wheel_supporter();

/// One file of scenes/robotino/meshes.
struct PartFile {
  std::string file;  ///< file name, e.g. "chassis.stl"
  bool ascii;        ///< ASCII STL instead of binary
  Mesh mesh;
};

/// Every mesh file, in a fixed order. Vertices rounded to a 1 µm grid.
std::vector<PartFile> parts();

/// The exact bytes written for a part.
std::string file_bytes(const PartFile& part);

}  // namespace cosim::meshgen::robotino
