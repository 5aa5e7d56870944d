// The scene an FMU ships, unpacked into the user's cache (shipped_scene.hpp).
#include "cosim/fmi/shipped_scene.hpp"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "cosim/fmi/zip_reader.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/digest.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {

namespace fs = std::filesystem;

namespace {

std::atomic<unsigned> g_partials{0};  // a process unpacking twice uses two partial folders

}  // namespace

std::optional<fs::path> shipped_scene(const fs::path& fmu) {
  ZipArchive zip(fmu);  // every name checked: none climbs out, none is a link
  std::vector<const ZipEntry*> entries;
  std::uint64_t digest = util::kFnv1aBasis;  // names the cached copy: the same scene, one copy
  for (const ZipEntry& e : zip.entries()) {
    if (e.name.size() <= kShippedScenePrefix.size() || e.name.compare(0, kShippedScenePrefix.size(), kShippedScenePrefix) != 0) {
      continue;
    }
    entries.push_back(&e);
    digest = util::fnv1a_64(e.name + "\t" + std::to_string(e.size) + "\t" + std::to_string(e.crc32) + "\n", digest);
  }
  if (entries.empty()) return std::nullopt;
  char name[17];
  std::snprintf(name, sizeof name, "%016" PRIx64, digest);
  const fs::path cache = platform::user_cache_dir() / "fmu-scenes";
  const fs::path folder = cache / name;
  std::error_code ec;
  if (fs::is_directory(folder, ec)) return folder;  // complete: only a finished copy is renamed there

  const auto fail = [&](const fs::path& where, const std::string& what) {
    throw util::OutputError(platform::utf8(where) + ": " + what + " (the cache of FMU scenes; COSIM_CACHE_DIR moves it)");
  };
  fs::create_directories(cache, ec);
  if (ec) fail(cache, "cannot create: " + ec.message());
  const fs::path partial = cache / (std::string(name) + ".partial-" + platform::user_tag() + "-" +
                                    std::to_string(g_partials.fetch_add(1)) + "-" +
                                    std::to_string(static_cast<unsigned long long>(
                                        std::hash<std::string>{}(platform::utf8(fmu)))));
  fs::remove_all(partial, ec);
  if (!fs::create_directory(partial, ec) || ec) fail(partial, "cannot create");
  try {
    for (const ZipEntry* e : entries) {
      const fs::path target = partial / platform::path_from_utf8(std::string_view(e->name).substr(kShippedScenePrefix.size()));
      if (e->folder()) {
        fs::create_directories(target, ec);
        if (ec) fail(target, "cannot create: " + ec.message());
        continue;
      }
      fs::create_directories(target.parent_path(), ec);
      if (ec) fail(target.parent_path(), "cannot create: " + ec.message());
      const std::string bytes = zip.read(*e);  // sizes held to the limits, CRC checked
      std::ofstream out(target, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.close();
      if (!out) fail(target, "cannot write (disk full?)");
    }
    fs::rename(partial, folder, ec);
    if (ec) {
      if (!fs::is_directory(folder)) fail(folder, "cannot rename " + platform::utf8(partial) + " to it: " + ec.message());
      fs::remove_all(partial, ec);  // another process finished the same copy first: it is as good as ours
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
    throw;
  }
  return folder;
}

}  // namespace cosim::fmi
