#pragma once
// Path helpers shared by the XML loader and SceneBuilder. Internal to cosim::scene.

#include <algorithm>
#include <filesystem>

namespace cosim::scene::detail {

/// True if `p` lies strictly inside folder `root`, comparing path elements (both already
/// canonical or lexically normal: no "..", no symlinks resolved here).
inline bool is_inside(const std::filesystem::path& root, const std::filesystem::path& p) {
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end() && q != p.end();
}

}  // namespace cosim::scene::detail
