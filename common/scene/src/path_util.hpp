#pragma once
// Path helpers shared by the scene readers and SceneBuilder. Internal to cosim::scene.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>

namespace cosim::scene::detail {

/// True if `p` lies strictly inside folder `root`, comparing path elements (both already
/// canonical or lexically normal: no "..", no symlinks resolved here).
inline bool is_inside(const std::filesystem::path& root, const std::filesystem::path& p) {
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end() && q != p.end();
}

/// `s` in ASCII lower case: file extensions compared in any case (".URDF", ".Xml").
inline std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace cosim::scene::detail
