// URDF mesh paths resolved against the package path (package_path.hpp).
#include "cosim/util/package_path.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <system_error>
#include <utility>

namespace cosim::util {

namespace fs = std::filesystem;

namespace {

std::string single_quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// True if `p` lies strictly inside folder `root`, comparing path elements (both canonical).
bool lies_inside(const fs::path& root, const fs::path& p) {
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end() && q != p.end();
}

}  // namespace

PackagePath::PackagePath(std::span<const fs::path> given) {
  std::vector<std::pair<fs::path, bool>> folders;  // (folder, given explicitly)
  for (const fs::path& p : given) folders.emplace_back(p, true);
  if (const char* env = std::getenv("COSIM_PACKAGE_PATH"); env != nullptr) {
    for (std::string_view rest = env; !rest.empty();) {
      const std::size_t colon = std::min(rest.find(':'), rest.size());
      if (colon > 0) folders.emplace_back(fs::path(rest.substr(0, colon)), false);
      rest.remove_prefix(std::min(colon + 1, rest.size()));
    }
  }
  for (const auto& [folder, explicitly] : folders) {
    std::error_code ec;
    fs::path canonical = fs::canonical(folder, ec);
    if (ec || !fs::is_directory(canonical, ec)) {
      if (explicitly) throw PackagePathError("package path folder does not exist", folder);
      continue;
    }
    folders_.push_back(std::move(canonical));
  }
}

fs::path PackagePath::resolve_mesh(const std::string& uri, const fs::path& urdf_folder) const {
  constexpr std::string_view kPackage = "package://", kFile = "file://";
  fs::path full;
  if (uri.starts_with(kPackage)) {
    const std::string_view rest = std::string_view(uri).substr(kPackage.size());
    const std::size_t slash = rest.find('/');
    if (slash == 0 || slash == std::string_view::npos || slash + 1 == rest.size()) {
      throw PackagePathError("bad mesh path " + single_quoted(uri) + ": expected package://PACKAGE/PATH");
    }
    const std::string_view package = rest.substr(0, slash);
    std::optional<fs::path> found;
    for (const fs::path& folder : folders_) {
      std::error_code ec;
      if (fs::is_directory(folder / fs::path(package), ec)) {
        found = folder / fs::path(package);
        break;
      }
    }
    if (!found) {
      std::string searched;
      for (const fs::path& p : folders_) searched += (searched.empty() ? "" : ", ") + p.string();
      searched = searched.empty() ? "the package path is empty: give --package-path or set COSIM_PACKAGE_PATH"
                                  : "searched " + searched;
      throw PackagePathError("package " + single_quoted(package) + " of mesh " + single_quoted(uri) +
                             " is in no package-path folder (" + searched + ")");
    }
    full = *found / fs::path(rest.substr(slash + 1));
  } else if (uri.starts_with(kFile)) {
    full = fs::path(uri.substr(kFile.size()));
    if (!full.is_absolute()) throw PackagePathError("mesh path " + single_quoted(uri) + ": a file:// path must be absolute");
  } else if (uri.find("://") != std::string::npos) {
    throw PackagePathError("mesh path " + single_quoted(uri) + ": only package://, file:// and plain paths are read");
  } else {
    full = urdf_folder / fs::path(uri);  // an absolute path replaces the folder
  }

  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(full, ec);
  if (ec) throw PackagePathError("cannot resolve mesh path " + single_quoted(uri) + ": " + ec.message());
  const bool allowed = lies_inside(urdf_folder, resolved) ||
                       std::any_of(folders_.begin(), folders_.end(),
                                   [&](const fs::path& p) { return lies_inside(p, resolved); });
  if (!allowed) {
    throw PackagePathError("mesh path " + single_quoted(uri) + " resolves to " + resolved.string() +
                           ", outside the URDF's folder " + urdf_folder.string() +
                           (folders_.empty() ? "" : " and the package-path folders"));
  }
  if (!fs::exists(resolved, ec)) throw PackagePathError("mesh file not found: " + resolved.string());
  if (!fs::is_regular_file(resolved, ec)) throw PackagePathError("mesh path is not a regular file: " + resolved.string());
  return resolved;
}

}  // namespace cosim::util
