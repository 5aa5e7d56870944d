#pragma once
/// @file
/// The scene an FMU may ship for cosim: a scene folder (projects/, robots/, objects/, meshes/;
/// docs/scenes.md) under `resources/cosim/scene/` in the archive. Unpacked once into the
/// user's cache, where every process of a run finds the same copy: the dynamics, the visual
/// side, a replay later.

#include <filesystem>
#include <optional>
#include <string_view>

namespace cosim::fmi {

/// Where an FMU's scene is in its archive.
inline constexpr std::string_view kShippedScenePrefix = "resources/cosim/scene/";

/// The FMU's shipped scene, unpacked into platform::user_cache_dir()/fmu-scenes/<a digest of
/// its entries' names, sizes and CRCs>/ (the first time: through a folder beside it, renamed
/// when complete, so a process never sees half a scene); nullopt when the FMU ships none.
/// Throws util::BadInputError for an archive the zip reader refuses (ZipArchive),
/// util::OutputError naming the folder when the cache cannot be written.
std::optional<std::filesystem::path> shipped_scene(const std::filesystem::path& fmu);

}  // namespace cosim::fmi
