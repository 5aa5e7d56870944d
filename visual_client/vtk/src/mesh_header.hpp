#pragma once
/// \file
/// Checks of a mesh file's header before VTK's reader sees it. The STL and PLY readers size
/// their arrays from counts in the header (a 134-byte STL claiming 2^31-1 triangles asked for
/// tens of gigabytes), so a count the file cannot hold is refused first.

#include <cstdint>
#include <filesystem>
#include <string>

#include "cosim/scene/scene.hpp"

namespace cosim::visual::detail {

/// Why `file` (of `bytes` bytes, in `format`) cannot be what its header says; empty when its
/// counts fit its length. Formats without counts in a header (OBJ, COLLADA) always pass.
std::string mesh_header_problem(const std::filesystem::path& file, std::uintmax_t bytes, scene::MeshFormat format);

}  // namespace cosim::visual::detail
