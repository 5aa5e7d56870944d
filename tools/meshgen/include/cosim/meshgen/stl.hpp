#pragma once
/// \file
/// A small STL writer and reader (both the binary and the ASCII form), enough for meshes we
/// write ourselves and for checking them when read back.

#include <string>
#include <string_view>

#include "cosim/meshgen/mesh.hpp"

namespace cosim::meshgen {

/// Binary STL: an 80-byte header (the text, padded with spaces; it must not start with
/// "solid", which readers take for ASCII), the triangle count, then per triangle the unit
/// normal and three vertices as little-endian float32 and a zero attribute word.
std::string binary_stl(const Mesh& mesh, std::string_view header);

/// ASCII STL; each number in the shortest form that reads back to the same float32.
std::string ascii_stl(const Mesh& mesh, std::string_view solid_name);

/// Reads binary or ASCII STL. Vertices with bitwise equal float coordinates become one vertex,
/// so a closed surface reads back closed. Throws std::runtime_error saying what is wrong and
/// where (byte offset or line).
Mesh read_stl(std::string_view bytes);

}  // namespace cosim::meshgen
