#pragma once
/// \file
/// The scene model turned into VTK actors (DESIGN.md "Scene format"): one actor per
/// `<render>`, its geometry baked once in the render's frame, moved every frame only through
/// its user transform.

#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Geometry>
#include <vtkActor.h>
#include <vtkMatrix4x4.h>
#include <vtkMatrixToLinearTransform.h>
#include <vtkSmartPointer.h>

#include "cosim/scene/scene_model.hpp"

class vtkRenderer;

namespace cosim::visual {

/// Builds the actors of a scene once; `update()` then only rewrites 4x4 matrices.
///
/// Every frame of the scene that carries an actor or a probe owns one vtkMatrix4x4 wrapped
/// in a vtkMatrixToLinearTransform; the actors of that frame share it as their user
/// transform. (vtkTransform::SetMatrix would rebuild its concatenation list every frame;
/// copying into a matrix the transform observes does not allocate.)
class SceneView {
 public:
  /// Builds geometry, colours and actors. Each mesh file (STL, OBJ, PLY; COLLADA in builds
  /// with assimp) is read once and shared. Throws scene::SceneError (file:line of the
  /// element, naming the mesh file) when a mesh cannot be read or is empty.
  ///
  /// `mesh_triangle_budget` (0 = none): when the meshes the renders draw (files and
  /// TriangleMesh shapes, counted once per placement) hold more triangles than this, every
  /// mesh of more than kMinDecimatedTriangles is decimated (vtkQuadricDecimation) by the one
  /// factor that brings the total to the budget: downloaded robots often carry millions of
  /// triangles that llvmpipe cannot draw at a frame rate. Probes do not change (they follow
  /// the frames, not the triangles).
  explicit SceneView(const scene::SceneModel& scene, std::size_t mesh_triangle_budget = 0);
  SceneView(const SceneView&) = delete;
  SceneView& operator=(const SceneView&) = delete;

  const scene::SceneModel& scene() const { return scene_; }

  /// One actor per scene render, in SceneModel::renders() order.
  std::span<const vtkSmartPointer<vtkActor>> actors() const { return actors_; }
  void add_to(vtkRenderer& renderer) const;

  /// Moves every actor (and probe frame) to the world transforms X_WF of the scene's frames
  /// (SceneModel::world_transforms() output). Sets matrices only: no pipeline runs, no
  /// allocation. Throws std::invalid_argument when X_WF is not one pose per scene frame.
  void update(std::span<const Eigen::Isometry3d> X_WF);

  /// World position p_WP [m] of every scene probe (SceneModel::probes() order), computed
  /// from VTK's matrices: the actor's own matrix (GetMatrix(), which composes its user
  /// transform) for frames that carry an actor, the frame's VTK transform otherwise.
  /// Throws std::invalid_argument when p_WP is not one slot per scene probe.
  void probe_positions(std::span<Eigen::Vector3d> p_WP) const;

  /// Distinct mesh files read (each once, however often it is used).
  std::size_t meshes_loaded() const { return meshes_loaded_; }
  /// Triangles over all actors (after the build, and after decimation).
  std::size_t triangle_count() const { return triangles_; }
  /// Mesh triangles the renders draw as read, before any decimation (once per placement).
  std::size_t mesh_triangles_read() const { return mesh_triangles_read_; }
  /// Meshes decimated to meet the triangle budget (0 when within it or without one).
  std::size_t meshes_decimated() const { return meshes_decimated_; }
  /// Meshes of at most this many triangles are never decimated (small parts keep their shape).
  static constexpr std::size_t kMinDecimatedTriangles = 2000;
  /// Renders found to be closed surfaces, drawn with back faces culled.
  std::size_t closed_renders() const { return closed_renders_; }
  /// True for actors whose frame moves with a driven joint (used to frame the camera).
  bool actor_moves(std::size_t render_index) const { return actor_moves_[render_index] != 0; }

 private:
  const scene::SceneModel& scene_;
  std::vector<vtkSmartPointer<vtkActor>> actors_;
  // Per scene frame (null where neither an actor nor a probe needs it).
  std::vector<vtkSmartPointer<vtkMatrix4x4>> frame_matrix_;
  std::vector<vtkSmartPointer<vtkMatrixToLinearTransform>> frame_transform_;
  // Per scene frame: the first actor attached to it, or null.
  std::vector<vtkActor*> frame_actor_;
  std::vector<int> used_frames_;
  std::vector<char> actor_moves_;
  std::size_t meshes_loaded_ = 0;
  std::size_t triangles_ = 0;
  std::size_t closed_renders_ = 0;
  std::size_t mesh_triangles_read_ = 0;
  std::size_t meshes_decimated_ = 0;
};

/// RGB [0, 1] of a render: vtkNamedColors for a CSS name it knows with the CSS value,
/// else the scene model's value (the scene's CSS table is the reference).
void render_color(const scene::Render& render, double rgb[3]);

}  // namespace cosim::visual
