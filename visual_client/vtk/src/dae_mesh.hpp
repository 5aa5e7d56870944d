#pragma once
// COLLADA (.dae) meshes through assimp, for SceneView. Internal to cosim::visual_vtk; built
// only with assimp (COSIM_HAVE_ASSIMP).

#include <filesystem>
#include <string>

#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

namespace cosim::visual::detail {

/// Every mesh of the file's node hierarchy as triangles, each node's transform (its own
/// times its ancestors') applied, in one polydata. <unit> is honoured; <up_axis> is not
/// turned into Y-up as assimp does by default: like ROS (rviz), a mesh's coordinates are
/// taken as they are in the link frame, so a Z_UP file comes out Z-up. Returns null and
/// sets `why` (assimp's message, or "no triangles") when the file cannot be read.
vtkSmartPointer<vtkPolyData> read_dae(const std::filesystem::path& file, std::string& why);

}  // namespace cosim::visual::detail
