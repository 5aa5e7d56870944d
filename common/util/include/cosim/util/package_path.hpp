#pragma once
/// @file
/// Where a URDF's mesh paths point: `package://NAME/PATH` looked up in the package path,
/// `file:///abs`, or a plain path relative to the URDF's folder. One resolver for both sides
/// of a run: the URDF scene reader draws the meshes it finds, the MuJoCo loader hands MuJoCo
/// the same files (docs/scenes.md "Mesh files").

#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cosim::util {

/// A package-path folder that does not exist (folder() names it), or a mesh path that does
/// not resolve to an allowed regular file (folder() empty: the reader adds the location).
/// what() is "FOLDER: MESSAGE", or MESSAGE alone.
class PackagePathError : public std::runtime_error {
 public:
  explicit PackagePathError(const std::string& message, std::filesystem::path folder = {})
      : std::runtime_error(folder.empty() ? message : folder.string() + ": " + message),
        message_(message),
        folder_(std::move(folder)) {}
  const std::string& message() const noexcept { return message_; }
  const std::filesystem::path& folder() const noexcept { return folder_; }

 private:
  std::string message_;
  std::filesystem::path folder_;
};

/// The package path: the folders given (--package-path; each must exist), then those of
/// $COSIM_PACKAGE_PATH (':'-separated; missing ones skipped, as PATH's), all canonical.
class PackagePath {
 public:
  /// Throws PackagePathError "FOLDER: package path folder does not exist" for a given one.
  explicit PackagePath(std::span<const std::filesystem::path> given);

  /// Canonical folders, in search order.
  const std::vector<std::filesystem::path>& folders() const { return folders_; }

  /// The canonical file `uri` names for a URDF in `urdf_folder` (canonical). After ".." and
  /// symlinks it must lie inside `urdf_folder` or a package-path folder, exist and be a
  /// regular file; otherwise PackagePathError says why ("package 'x' of mesh '...' is in no
  /// package-path folder (...)", "mesh file not found: ...").
  std::filesystem::path resolve_mesh(const std::string& uri, const std::filesystem::path& urdf_folder) const;

 private:
  std::vector<std::filesystem::path> folders_;
};

}  // namespace cosim::util
