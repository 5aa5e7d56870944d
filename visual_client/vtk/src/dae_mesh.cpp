#include "dae_mesh.hpp"

#include <string>
#include <utility>
#include <vector>

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <vtkCellArray.h>
#include <vtkPoints.h>

namespace cosim::visual::detail {

namespace {

/// Appends the triangles of `mesh`, held by node N, in the file's frame F (X_FN: N's pose in F).
void append_mesh(const aiMesh& mesh, const aiMatrix4x4& X_FN, vtkPoints& points, vtkCellArray& triangles) {
  const vtkIdType first = points.GetNumberOfPoints();
  for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
    const aiVector3D p_F = X_FN * mesh.mVertices[v];
    points.InsertNextPoint(p_F.x, p_F.y, p_F.z);
  }
  for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
    const aiFace& face = mesh.mFaces[f];
    if (face.mNumIndices != 3) continue;  // points and lines are not surfaces
    const vtkIdType ids[3] = {first + face.mIndices[0], first + face.mIndices[1], first + face.mIndices[2]};
    triangles.InsertNextCell(3, ids);
  }
}

}  // namespace

vtkSmartPointer<vtkPolyData> read_dae(const std::filesystem::path& file, std::string& why) {
  Assimp::Importer importer;
  // assimp turns a Z_UP (or X_UP) file into Y-up by rotating its root node; ROS tools keep the
  // file's coordinates (rviz drops that rotation), and so do we. The <unit> scale stays.
  importer.SetPropertyInteger(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  const aiScene* scene = importer.ReadFile(file.string(), aiProcess_Triangulate | aiProcess_SortByPType);
  if (scene == nullptr || scene->mRootNode == nullptr || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0) {
    why = importer.GetErrorString();
    if (why.empty()) why = "no meshes";
    return nullptr;
  }

  auto points = vtkSmartPointer<vtkPoints>::New();
  points->SetDataTypeToDouble();
  auto triangles = vtkSmartPointer<vtkCellArray>::New();
  // Depth first over the node hierarchy without recursion (a file sets its depth), each node N
  // with X_FN, the product of the transforms from the root down to it.
  std::vector<std::pair<const aiNode*, aiMatrix4x4>> pending{{scene->mRootNode, scene->mRootNode->mTransformation}};
  while (!pending.empty()) {
    const auto [node, X_FN] = pending.back();
    pending.pop_back();
    for (unsigned i = 0; i < node->mNumMeshes; ++i) {
      append_mesh(*scene->mMeshes[node->mMeshes[i]], X_FN, *points, *triangles);
    }
    for (unsigned c = 0; c < node->mNumChildren; ++c) {
      pending.emplace_back(node->mChildren[c], X_FN * node->mChildren[c]->mTransformation);
    }
  }
  if (triangles->GetNumberOfCells() == 0) {
    why = "no triangles";
    return nullptr;
  }
  auto mesh = vtkSmartPointer<vtkPolyData>::New();
  mesh->SetPoints(points);
  mesh->SetPolys(triangles);
  return mesh;
}

}  // namespace cosim::visual::detail
