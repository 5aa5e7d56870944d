// A URDF read by MuJoCo as the URDF scene reader reads it (mjcf.hpp: urdf_for_mujoco), and
// model text loaded through MuJoCo's virtual file system.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>

#include <mujoco/mujoco.h>
#include <pugixml.hpp>

#include "cosim/mjcf/mjcf.hpp"
#include "cosim/util/package_path.hpp"

namespace cosim::mjcf {

namespace fs = std::filesystem;

namespace {

// "FILE:LINE" of the node at `offset` characters into `text`.
std::string where(const fs::path& file, const std::string& text, std::ptrdiff_t offset) {
  const auto end = text.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text.size()));
  return file.string() + ":" + std::to_string(1 + std::count(text.begin(), end, '\n'));
}

// True if `values` (an xyz or rpy attribute) holds only zeros (or nothing).
bool all_zero(const char* values) {
  std::istringstream in(values);
  for (double v = 0.0; in >> v;) {
    if (v != 0.0) return false;
  }
  return true;
}

// The mesh formats MuJoCo 2.2.2 reads, by file name (any case).
bool mujoco_reads_mesh(std::string_view filename) {
  std::string extension = fs::path(filename).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".stl" || extension == ".obj" || extension == ".msh";
}

std::string read_text(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) throw ModelError("cannot read model file '" + file.string() + "': " + ec.message());
  if (size > kMaxModelFileBytes) {
    throw ModelError("model file '" + file.string() + "' is " + std::to_string(size) + " bytes; the limit is " +
                     std::to_string(kMaxModelFileBytes));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw ModelError("cannot read model file '" + file.string() + "'");
  return text.str();
}

}  // namespace

std::string urdf_for_mujoco(const fs::path& file, const LoadOptions& options, const UrdfImport& import) {
  const std::string text = read_text(file);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) throw ModelError(where(file, text, parsed.offset) + ": malformed XML: " + parsed.description());
  pugi::xml_node robot = doc.child("robot");
  if (!robot) throw ModelError(file.string() + ": a URDF's root element is <robot>");

  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(file, ec).parent_path(), ec);
  util::PackagePath packages = [&] {
    try {
      return util::PackagePath(options.package_path);
    } catch (const util::PackagePathError& e) {
      throw ModelError(e.what());
    }
  }();
  for (pugi::xml_node link : robot.children("link")) {
    if (import.keep_visuals) {
      std::vector<pugi::xml_node> unreadable;
      for (pugi::xml_node visual : link.children("visual")) {
        const char* filename = visual.child("geometry").child("mesh").attribute("filename").value();
        if (*filename != '\0' && !mujoco_reads_mesh(filename)) unreadable.push_back(visual);
      }
      for (pugi::xml_node visual : unreadable) {
        if (import.notes != nullptr) {
          import.notes->push_back(where(file, text, visual.offset_debug()) + ": link '" + link.attribute("name").value() +
                                  "': visual mesh '" + visual.child("geometry").child("mesh").attribute("filename").value() +
                                  "' left out: MuJoCo " + mj_versionString() + " reads STL, OBJ and MSH meshes only");
        }
        link.remove_child(visual);
      }
    }
    for (const char* kind : {"visual", "collision"}) {
      for (pugi::xml_node part : link.children(kind)) {
        const pugi::xml_node mesh = part.child("geometry").child("mesh");
        pugi::xml_attribute filename = mesh.attribute("filename");
        if (!filename) continue;
        try {
          filename.set_value(packages.resolve_mesh(filename.value(), folder).string().c_str());
        } catch (const util::PackagePathError& e) {
          throw ModelError(where(file, text, mesh.offset_debug()) + ": link '" + link.attribute("name").value() +
                           "': " + e.message());
        }
      }
    }
  }
  for (pugi::xml_node joint : robot.children("joint")) {
    const pugi::xml_node origin = joint.child("origin");
    if (std::string_view(joint.attribute("type").value()) == "floating" && origin &&
        !(all_zero(origin.attribute("xyz").value()) && all_zero(origin.attribute("rpy").value()))) {
      throw ModelError(where(file, text, joint.offset_debug()) + ": floating joint '" + joint.attribute("name").value() +
                       "' has an <origin>: MuJoCo's free joint gives the link's world pose, which the scene "
                       "would place after the origin a second time; remove the <origin> (the link starts at "
                       "the world origin)");
    }
  }

  pugi::xml_node mujoco = robot.child("mujoco");
  if (!mujoco) mujoco = robot.prepend_child("mujoco");
  pugi::xml_node compiler = mujoco.child("compiler");
  if (!compiler) compiler = mujoco.append_child("compiler");
  const auto set = [&](const char* name, const char* value) {
    pugi::xml_attribute a = compiler.attribute(name);
    if (!a) a = compiler.append_attribute(name);
    a.set_value(value);
  };
  set("strippath", "false");  // the mesh paths above are absolute: keep their folders
  if (import.keep_visuals) set("discardvisual", "false");
  if (import.keep_fixed_links) set("fusestatic", "false");

  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

ModelPtr load_model_text(const fs::path& file, const std::string& text) {
  // The VFS keeps file names without folders; MuJoCo looks the model up there by its name
  // first, and reads every other file (meshes) from disk.
  const auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const std::string name = file.filename().string();
  if (text.size() > kMaxModelFileBytes || mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(text.size())) != 0) {
    mj_deleteVFS(vfs.get());
    throw ModelError(file.string() + ": cannot hand the model to MuJoCo (" + std::to_string(text.size()) + " bytes)");
  }
  std::memcpy(vfs->filedata[0], text.data(), text.size());
  char error[1000] = "";
  ModelPtr model(mj_loadXML(file.string().c_str(), vfs.get(), error, sizeof error));
  mj_deleteVFS(vfs.get());
  if (!model) throw ModelError(file.string() + ": MuJoCo cannot load it: " + explain_load_error(file, one_line(error)));
  return model;
}

}  // namespace cosim::mjcf
