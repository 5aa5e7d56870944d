#include "cosim/visual/vtk/scene_view.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <string>
#include <system_error>
#include <type_traits>
#include <variant>

#include <vtkAbstractPolyDataReader.h>
#include <vtkAppendPolyData.h>
#include <vtkCellArray.h>
#include <vtkCleanPolyData.h>
#include <vtkConeSource.h>
#include <vtkCubeSource.h>
#include <vtkCylinderSource.h>
#include <vtkFeatureEdges.h>
#include <vtkNamedColors.h>
#include <vtkOBJReader.h>
#include <vtkPLYReader.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkProperty.h>
#include <vtkQuadricDecimation.h>
#include <vtkRenderer.h>
#include <vtkRotationalExtrusionFilter.h>
#include <vtkSTLReader.h>
#include <vtkShaderProperty.h>
#include <vtkSphereSource.h>
#include <vtkTransform.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkTriangleFilter.h>

#include "cosim/visual/vtk/vtk_messages.hpp"
#include "mesh_header.hpp"
#if COSIM_HAVE_ASSIMP
#include "dae_mesh.hpp"
#endif

namespace cosim::visual {

namespace {

// A mesh bigger than this is refused before VTK allocates for it.
constexpr std::uintmax_t kMaxMeshBytes = 512ull << 20;
// Points closer than this are one point (a swept profile's 360-degree copy is off by ~1e-16 m).
constexpr double kMergeTolerance_m = 1e-9;

// Replaces VTK 9.1's fragment lighting (ambientColor, diffuseColor, opacity and the
// two-sided normal are set by VTK's code before this point).
constexpr const char* kHeadlightDiffuse =
    "  float df = max(0.0, normalVCVSOutput.z);\n"
    "  gl_FragData[0] = vec4(ambientColor + df * diffuseColor, opacity);\n";

/// True when every edge is shared by exactly two polygons: a closed, manifold surface that
/// can be oriented outwards and seen from outside only.
bool is_closed_surface(vtkPolyData* polydata) {
  if (polydata->GetNumberOfPolys() + polydata->GetNumberOfStrips() == 0 || polydata->GetNumberOfLines() > 0) {
    return false;
  }
  auto edges = vtkSmartPointer<vtkFeatureEdges>::New();
  edges->SetInputData(polydata);
  edges->BoundaryEdgesOn();
  edges->NonManifoldEdgesOn();
  edges->FeatureEdgesOff();
  edges->ManifoldEdgesOff();
  edges->ColoringOff();
  edges->Update();
  return edges->GetOutput()->GetNumberOfCells() == 0;
}

/// Eigen (column-major) pose -> VTK row-major 4x4 elements.
void to_vtk(const Eigen::Isometry3d& X, double elements[16]) {
  const Eigen::Matrix4d& M = X.matrix();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) elements[4 * i + j] = M(i, j);
  }
}

vtkSmartPointer<vtkTransform> to_vtk_transform(const Eigen::Isometry3d& X) {
  double elements[16];
  to_vtk(X, elements);
  auto transform = vtkSmartPointer<vtkTransform>::New();
  transform->SetMatrix(elements);
  return transform;
}

/// Runs `source` once and returns a standalone copy of its output (no pipeline kept).
vtkSmartPointer<vtkPolyData> run(vtkAlgorithm* algorithm) {
  algorithm->Update();
  auto out = vtkSmartPointer<vtkPolyData>::New();
  out->ShallowCopy(vtkPolyData::SafeDownCast(algorithm->GetOutputDataObject(0)));
  return out;
}

/// Rotation taking VTK's native axis of a source (`from`, a unit axis) onto the scene's
/// axis letter.
Eigen::Isometry3d axis_rotation(const Eigen::Vector3d& from, char axis) {
  const Eigen::Vector3d to = axis == 'x' ? Eigen::Vector3d::UnitX()
                             : axis == 'y' ? Eigen::Vector3d::UnitY()
                                           : Eigen::Vector3d::UnitZ();
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = Eigen::Quaterniond::FromTwoVectors(from, to).toRotationMatrix();
  return X;
}

vtkSmartPointer<vtkPolyData> transformed(vtkPolyData* input, const Eigen::Isometry3d& X) {
  auto filter = vtkSmartPointer<vtkTransformPolyDataFilter>::New();
  filter->SetInputData(input);
  filter->SetTransform(to_vtk_transform(X));
  return run(filter);
}

/// A geometry ready to draw: triangles with normals, and whether it is a closed solid.
struct Prepared {
  vtkSmartPointer<vtkPolyData> mesh;
  bool closed = false;
};

/// Merges coincident points (VTK sources repeat them per face) so that a closed solid is
/// seen as one; a closed one is oriented outwards, so that its back faces can be culled.
/// That halves the pixels llvmpipe shades (a box's bottom face under its top...).
Prepared prepare(vtkPolyData* shape) {
  auto triangles = vtkSmartPointer<vtkTriangleFilter>::New();  // strips -> triangles
  triangles->SetInputData(shape);
  triangles->PassLinesOff();
  triangles->PassVertsOff();
  auto clean = vtkSmartPointer<vtkCleanPolyData>::New();  // drops triangles merged to nothing
  clean->SetInputConnection(triangles->GetOutputPort());
  clean->ToleranceIsAbsoluteOn();
  clean->SetAbsoluteTolerance(kMergeTolerance_m);
  clean->ConvertLinesToPointsOff();
  clean->ConvertPolysToLinesOff();
  clean->ConvertStripsToPolysOff();
  auto merged = run(clean);
  Prepared out;
  out.closed = is_closed_surface(merged);
  // Normals split at sharp edges: flat box faces, smooth barrels.
  auto normals = vtkSmartPointer<vtkPolyDataNormals>::New();
  normals->SetInputData(merged);
  normals->SetFeatureAngle(40.0);
  normals->SplittingOn();
  normals->ConsistencyOn();
  normals->SetAutoOrientNormals(out.closed);
  out.mesh = run(normals);
  return out;
}

const char* format_name(scene::MeshFormat format) {
  switch (format) {
    case scene::MeshFormat::stl: return "STL";
    case scene::MeshFormat::obj: return "OBJ";
    case scene::MeshFormat::ply: return "PLY";
    case scene::MeshFormat::dae: return "DAE";
  }
  return "unknown";
}

/// A mesh file read with the reader of its format (VTK's for STL, OBJ and PLY; assimp for
/// COLLADA). Returns null and sets `why` when it cannot be read or holds no triangles.
vtkSmartPointer<vtkPolyData> read_mesh(const scene::Part& part, std::string& why) {
  if (part.format == scene::MeshFormat::dae) {
#if COSIM_HAVE_ASSIMP
    return detail::read_dae(part.file, why);
#else
    why = "this build reads no COLLADA files (it was built without assimp)";
    return nullptr;
#endif
  }
  vtkSmartPointer<vtkAbstractPolyDataReader> reader;
  if (part.format == scene::MeshFormat::stl) {
    auto stl = vtkSmartPointer<vtkSTLReader>::New();  // tells ASCII from binary itself
    stl->MergingOn();
    reader = stl;
  } else if (part.format == scene::MeshFormat::obj) {
    reader = vtkSmartPointer<vtkOBJReader>::New();
  } else {
    reader = vtkSmartPointer<vtkPLYReader>::New();  // ASCII or binary
  }
  VtkErrorCapture capture;  // errors are collected, not printed
  const std::string file = part.file.string();
  reader->SetFileName(file.c_str());
  auto mesh = run(reader);
  if (reader->GetErrorCode() != 0 || capture.had_error() || mesh->GetNumberOfPolys() == 0) {
    why = capture.had_error() ? capture.first_error() : "no triangles";
    return nullptr;
  }
  return mesh;
}

class Builder {
 public:
  explicit Builder(std::size_t& meshes_loaded) : meshes_loaded_(meshes_loaded) {}

  /// The geometry in its own frame G (before its placement X_FG).
  vtkSmartPointer<vtkPolyData> shape(const scene::Geometry& g) {
    return std::visit([&](const auto& s) { return make(s, g); }, g.shape);
  }

  /// Triangles of a mesh geometry (a Part file, read once, or a TriangleMesh), without
  /// building its placed or scaled polydata; 0 for the other shapes.
  std::size_t mesh_triangles(const scene::Geometry& g) {
    if (const auto* t = std::get_if<scene::TriangleMesh>(&g.shape)) return t->data->triangles.size();
    if (const auto* p = std::get_if<scene::Part>(&g.shape)) return static_cast<std::size_t>(unscaled(*p, g)->GetNumberOfPolys());
    return 0;
  }

 private:
  vtkSmartPointer<vtkPolyData> make(const scene::Cuboid& c, const scene::Geometry&) {
    auto source = vtkSmartPointer<vtkCubeSource>::New();
    source->SetXLength(c.lx);
    source->SetYLength(c.ly);
    source->SetZLength(c.lz);
    return run(source);
  }
  vtkSmartPointer<vtkPolyData> make(const scene::Cylinder& c, const scene::Geometry&) {
    auto source = vtkSmartPointer<vtkCylinderSource>::New();  // along y, centred
    source->SetRadius(c.radius);
    source->SetHeight(c.height);
    source->SetResolution(c.resolution);
    source->CappingOn();
    return transformed(run(source), axis_rotation(Eigen::Vector3d::UnitY(), c.axis));
  }
  vtkSmartPointer<vtkPolyData> make(const scene::Cone& c, const scene::Geometry&) {
    // vtkConeSource: base at -height/2, apex at +height/2 along Direction, as the scene says.
    auto source = vtkSmartPointer<vtkConeSource>::New();
    source->SetRadius(c.radius);
    source->SetHeight(c.height);
    source->SetResolution(c.resolution);
    source->SetDirection(c.axis == 'x' ? 1 : 0, c.axis == 'y' ? 1 : 0, c.axis == 'z' ? 1 : 0);
    source->CappingOn();
    return run(source);
  }
  vtkSmartPointer<vtkPolyData> make(const scene::Sphere& s, const scene::Geometry&) {
    auto source = vtkSmartPointer<vtkSphereSource>::New();
    source->SetRadius(s.radius);
    source->SetThetaResolution(s.resolution);
    source->SetPhiResolution(std::max(3, s.resolution / 2));
    return run(source);
  }
  vtkSmartPointer<vtkPolyData> make(const scene::Revolution& r, const scene::Geometry&) {
    // Profile as a polyline in the xz plane (x = radius, z = axial), swept about z.
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetDataTypeToDouble();
    auto line = vtkSmartPointer<vtkCellArray>::New();
    line->InsertNextCell(static_cast<vtkIdType>(r.profile_m.size()));
    for (const auto& p : r.profile_m) line->InsertCellPoint(points->InsertNextPoint(p.x(), 0.0, p.y()));
    auto profile = vtkSmartPointer<vtkPolyData>::New();
    profile->SetPoints(points);
    profile->SetLines(line);
    auto sweep = vtkSmartPointer<vtkRotationalExtrusionFilter>::New();
    sweep->SetInputData(profile);
    sweep->SetResolution(r.resolution);
    sweep->SetAngle(360.0);
    sweep->CappingOff();  // a full turn has no end faces; a closed profile closes the solid
    return transformed(run(sweep), axis_rotation(Eigen::Vector3d::UnitZ(), r.axis));
  }
  vtkSmartPointer<vtkPolyData> make(const scene::TriangleMesh& t, const scene::Geometry&) {
    auto& cached = triangle_meshes_[t.data.get()];
    if (!cached) cached = triangles_of(t);
    return cached;
  }
  static vtkSmartPointer<vtkPolyData> triangles_of(const scene::TriangleMesh& t) {
    auto points = vtkSmartPointer<vtkPoints>::New();
    points->SetDataTypeToFloat();
    points->SetNumberOfPoints(static_cast<vtkIdType>(t.data->vertices_m.size()));
    for (std::size_t i = 0; i < t.data->vertices_m.size(); ++i) {
      const Eigen::Vector3f& v = t.data->vertices_m[i];
      points->SetPoint(static_cast<vtkIdType>(i), v.x(), v.y(), v.z());
    }
    auto polys = vtkSmartPointer<vtkCellArray>::New();
    polys->AllocateExact(static_cast<vtkIdType>(t.data->triangles.size()), 3 * static_cast<vtkIdType>(t.data->triangles.size()));
    for (const auto& tri : t.data->triangles) {
      const vtkIdType ids[3] = {tri[0], tri[1], tri[2]};
      polys->InsertNextCell(3, ids);
    }
    auto mesh = vtkSmartPointer<vtkPolyData>::New();
    mesh->SetPoints(points);
    mesh->SetPolys(polys);
    return mesh;
  }
  vtkSmartPointer<vtkPolyData> make(const scene::Part& p, const scene::Geometry& g) { return scaled(unscaled(p, g), p.scale); }
  /// The Part's file as read, read once.
  vtkSmartPointer<vtkPolyData> unscaled(const scene::Part& p, const scene::Geometry& g) {
    const std::string key = p.file.string();
    if (auto it = meshes_.find(key); it != meshes_.end()) return it->second;
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(p.file, ec);
    if (ec) throw scene::SceneError(g.where, "mesh " + key + ": " + ec.message());
    if (bytes > kMaxMeshBytes) {
      throw scene::SceneError(g.where, "mesh " + key + " is " + std::to_string(bytes >> 20) +
                                           " MiB, more than the 512 MiB accepted");
    }
    std::string why = detail::mesh_header_problem(p.file, bytes, p.format);
    auto mesh = why.empty() ? read_mesh(p, why) : nullptr;
    if (!mesh) {
      throw scene::SceneError(g.where, std::string("cannot read ") + format_name(p.format) + " mesh " + key + ": " + why);
    }
    ++meshes_loaded_;
    meshes_.emplace(key, mesh);
    return mesh;
  }

  /// Scaled per axis about the mesh's own origin (factors > 0: the orientation stays).
  vtkSmartPointer<vtkPolyData> scaled(vtkPolyData* mesh, const Eigen::Vector3d& scale) {
    if (scale == Eigen::Vector3d::Ones()) return mesh;
    auto transform = vtkSmartPointer<vtkTransform>::New();
    transform->Scale(scale.x(), scale.y(), scale.z());
    auto filter = vtkSmartPointer<vtkTransformPolyDataFilter>::New();
    filter->SetInputData(mesh);
    filter->SetTransform(transform);
    return run(filter);
  }

  std::size_t& meshes_loaded_;
  std::map<std::string, vtkSmartPointer<vtkPolyData>> meshes_;  // file -> mesh, read once
  std::map<const void*, vtkSmartPointer<vtkPolyData>> triangle_meshes_;  // TriangleMesh data -> polydata, built once
};

}  // namespace

void render_color(const scene::Render& render, double rgb[3]) {
  rgb[0] = render.rgb.r;
  rgb[1] = render.rgb.g;
  rgb[2] = render.rgb.b;
  if (!render.color_name) return;
  static const vtkSmartPointer<vtkNamedColors> named = vtkSmartPointer<vtkNamedColors>::New();
  if (!named->ColorExists(*render.color_name)) return;
  double vtk_rgb[3];
  named->GetColorRGB(*render.color_name, vtk_rgb);
  // VTK's table keeps a few pre-CSS values under the same names; the scene's CSS value wins.
  const double tolerance = 0.5 / 255.0;
  if (std::abs(vtk_rgb[0] - rgb[0]) <= tolerance && std::abs(vtk_rgb[1] - rgb[1]) <= tolerance &&
      std::abs(vtk_rgb[2] - rgb[2]) <= tolerance) {
    for (int i = 0; i < 3; ++i) rgb[i] = vtk_rgb[i];
  }
}

SceneView::SceneView(const scene::SceneModel& scene, std::size_t mesh_triangle_budget) : scene_(scene) {
  const auto frames = scene.frames();
  frame_matrix_.resize(frames.size());
  frame_transform_.resize(frames.size());
  frame_actor_.assign(frames.size(), nullptr);

  // A frame moves when it or an ancestor is driven (parents come before children).
  std::vector<char> frame_moves(frames.size(), 0);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    frame_moves[f] = frames[f].joint_index >= 0 || (frames[f].parent >= 0 && frame_moves[frames[f].parent]);
  }
  const auto transform_of = [&](int f) -> vtkMatrixToLinearTransform* {
    auto& transform = frame_transform_[static_cast<std::size_t>(f)];
    if (!transform) {
      auto matrix = vtkSmartPointer<vtkMatrix4x4>::New();
      transform = vtkSmartPointer<vtkMatrixToLinearTransform>::New();
      transform->SetInput(matrix);
      frame_matrix_[static_cast<std::size_t>(f)] = matrix;
      used_frames_.push_back(f);
    }
    return transform;
  };

  Builder builder(meshes_loaded_);
  std::vector<Prepared> shapes(scene.geometries().size());
  // Parts using the same file at the same scale share one prepared mesh.
  std::map<std::tuple<std::string, double, double, double>, Prepared> parts;
  // The mesh triangles the renders draw (each mesh read once, here), against the budget.
  for (const auto& render : scene.renders()) {
    for (const auto& placed : render.parts) {
      mesh_triangles_read_ += builder.mesh_triangles(scene.geometries()[static_cast<std::size_t>(placed.geometry)]);
    }
  }
  const double keep = mesh_triangle_budget > 0 && mesh_triangles_read_ > mesh_triangle_budget
                          ? static_cast<double>(mesh_triangle_budget) / static_cast<double>(mesh_triangles_read_)
                          : 1.0;
  const auto decimated = [&](vtkSmartPointer<vtkPolyData> mesh) {
    if (keep >= 1.0 || static_cast<std::size_t>(mesh->GetNumberOfPolys()) <= kMinDecimatedTriangles) return mesh;
    auto triangles = vtkSmartPointer<vtkTriangleFilter>::New();  // the decimation takes triangles only
    triangles->SetInputData(mesh);
    // Shared points first: a mesh that repeats its vertices per triangle (an OBJ, a pole of a
    // sphere) has no edges to collapse.
    auto merge = vtkSmartPointer<vtkCleanPolyData>::New();
    merge->SetInputConnection(triangles->GetOutputPort());
    merge->ToleranceIsAbsoluteOn();
    merge->SetAbsoluteTolerance(kMergeTolerance_m);
    auto decimate = vtkSmartPointer<vtkQuadricDecimation>::New();
    decimate->SetInputConnection(merge->GetOutputPort());
    decimate->SetTargetReduction(1.0 - keep);
    decimate->VolumePreservationOn();  // no shrinking of thin parts
    ++meshes_decimated_;
    return run(decimate);
  };
  // Geometries sharing one TriangleMesh (a MuJoCo mesh used by several geoms) share it too.
  std::map<const void*, Prepared> triangle_meshes;
  const auto prepared = [&](const scene::Geometry& g) {
    if (const auto* mesh = std::get_if<scene::TriangleMesh>(&g.shape)) {
      auto [it, added] = triangle_meshes.try_emplace(mesh->data.get());
      if (added) it->second = prepare(decimated(builder.shape(g)));
      return it->second;
    }
    const auto* part = std::get_if<scene::Part>(&g.shape);
    if (part == nullptr) return prepare(builder.shape(g));
    auto [it, added] = parts.try_emplace({part->file.string(), part->scale.x(), part->scale.y(), part->scale.z()});
    if (added) it->second = prepare(decimated(builder.shape(g)));
    return it->second;
  };
  for (const auto& render : scene.renders()) {
    // Every geometry of the render, placed in the render's frame, in one polydata. The
    // render is closed when each of its geometries is.
    auto append = vtkSmartPointer<vtkAppendPolyData>::New();
    bool closed = true;
    for (const auto& placed : render.parts) {
      auto& shape = shapes[static_cast<std::size_t>(placed.geometry)];
      if (!shape.mesh) shape = prepared(scene.geometries()[static_cast<std::size_t>(placed.geometry)]);
      append->AddInputData(transformed(shape.mesh, placed.X_FG));  // rigid: keeps the orientation
      closed = closed && shape.closed;
    }
    auto polydata = run(append);
    triangles_ += static_cast<std::size_t>(polydata->GetNumberOfPolys());
    closed_renders_ += closed ? 1 : 0;

    auto mapper = vtkSmartPointer<vtkPolyDataMapper>::New();
    mapper->SetInputData(polydata);
    mapper->StaticOn();  // the data never changes: skip pipeline checks at every render
    auto actor = vtkSmartPointer<vtkActor>::New();
    actor->SetMapper(mapper);
    double rgb[3];
    render_color(render, rgb);
    actor->GetProperty()->SetColor(rgb);
    actor->GetProperty()->SetOpacity(render.opacity);
    if (render.opacity <= 0.0) actor->VisibilityOff();
    actor->GetProperty()->SetAmbient(0.25);
    actor->GetProperty()->SetDiffuse(0.85);
    if (closed) actor->GetProperty()->BackfaceCullingOn();
    // Headlight, diffuse only: VTK's own headlight code adds a pow() per pixel for the
    // specular term, 15-25% of the frame under llvmpipe, for highlights nobody needs here.
    actor->GetShaderProperty()->AddFragmentShaderReplacement("//VTK::Light::Impl", true, kHeadlightDiffuse, false);
    actor->SetUserTransform(transform_of(render.frame));
    if (frame_actor_[static_cast<std::size_t>(render.frame)] == nullptr) {
      frame_actor_[static_cast<std::size_t>(render.frame)] = actor;
    }
    actors_.push_back(actor);
    actor_moves_.push_back(frame_moves[static_cast<std::size_t>(render.frame)]);
  }
  // Probes on frames without an actor still go through a VTK transform.
  for (const auto& probe : scene.probes()) transform_of(probe.frame);
}

void SceneView::add_to(vtkRenderer& renderer) const {
  for (const auto& actor : actors_) renderer.AddActor(actor);
}

void SceneView::update(std::span<const Eigen::Isometry3d> X_WF) {
  if (X_WF.size() != scene_.frames().size()) {
    throw std::invalid_argument("SceneView::update: expected " + std::to_string(scene_.frames().size()) +
                                " frame transforms, got " + std::to_string(X_WF.size()));
  }
  double elements[16];
  for (const int f : used_frames_) {
    to_vtk(X_WF[static_cast<std::size_t>(f)], elements);
    frame_matrix_[static_cast<std::size_t>(f)]->DeepCopy(elements);  // marks it Modified
  }
}

void SceneView::probe_positions(std::span<Eigen::Vector3d> p_WP) const {
  const auto probes = scene_.probes();
  if (p_WP.size() != probes.size()) {
    throw std::invalid_argument("SceneView::probe_positions: expected room for " + std::to_string(probes.size()) +
                                " probes, got " + std::to_string(p_WP.size()));
  }
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto f = static_cast<std::size_t>(probes[i].frame);
    // The matrix VTK renders the actor with, or the frame's transform if it has no actor.
    vtkMatrix4x4* X_WF = frame_actor_[f] != nullptr ? frame_actor_[f]->GetMatrix()
                                                    : frame_transform_[f]->GetMatrix();
    const double p_F[4] = {probes[i].p_FP_m.x(), probes[i].p_FP_m.y(), probes[i].p_FP_m.z(), 1.0};
    double p_W[4];
    X_WF->MultiplyPoint(p_F, p_W);
    p_WP[i] = Eigen::Vector3d(p_W[0], p_W[1], p_W[2]);
  }
}

}  // namespace cosim::visual
