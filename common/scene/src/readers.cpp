#include "readers.hpp"

#include <array>
#include <string>
#include <system_error>
#include <vector>

namespace cosim::scene {
namespace detail {
namespace {

// Keep this list sorted by name; kinds must not overlap (the first that accepts reads).
constexpr std::array kReaders{
#if COSIM_HAVE_MUJOCO
    &kMjcfSceneReader,
#endif
#if COSIM_HAVE_URDF
    &kUrdfSceneReader,
#endif
    &kXmlSceneReader,
};

}  // namespace

std::span<const SceneReader* const> scene_readers() { return kReaders; }

}  // namespace detail

std::vector<SceneModel::Kind> SceneModel::kinds() {
  std::vector<Kind> out;
  for (const detail::SceneReader* reader : detail::scene_readers()) out.push_back({reader->name, reader->takes});
  return out;
}

SceneModel SceneModel::load(const std::filesystem::path& path, const LoadOptions& options) {
  for (const detail::SceneReader* reader : detail::scene_readers()) {
    if (reader->accepts(path)) return reader->read(path, options);
  }
  // Say what the path is and what would have been read.
  std::string kinds;
  for (const detail::SceneReader* reader : detail::scene_readers()) {
    kinds += (kinds.empty() ? "" : "; ") + std::string(reader->name) + " (" +
             std::string(reader->takes) + ")";
  }
  // Canonical when it exists, like every path in the readers' messages.
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  const std::filesystem::path named = exists ? std::filesystem::canonical(path, ec) : path;
  throw SceneError({ec ? path : named, 0},
                   std::string(exists ? "not a kind of scene this program reads"
                                      : "no such scene folder or file") +
                       "; accepted: " + kinds);
}

}  // namespace cosim::scene
