#pragma once
/// \file
/// Checks of a mesh file before its reader sees it. The STL and PLY readers size their arrays
/// from counts in the header (a 134-byte STL claiming 2^31-1 triangles asked for tens of
/// gigabytes), so a count the file cannot hold is refused first; assimp's COLLADA reader
/// recurses per nesting level, so a COLLADA file's depth is bounded first.

#include <cstdint>
#include <filesystem>
#include <string>

#include "cosim/scene/scene.hpp"

namespace cosim::visual::detail {

/// Why `file` (of `bytes` bytes, in `format`) cannot be what its header says; empty when its
/// counts fit its length and (COLLADA) its nesting is within bounds. OBJ always passes.
std::string mesh_header_problem(const std::filesystem::path& file, std::uintmax_t bytes, scene::MeshFormat format);

}  // namespace cosim::visual::detail
