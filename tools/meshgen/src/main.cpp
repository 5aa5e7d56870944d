// cosim-meshgen: writes the Robotino's STL meshes (scenes/robotino/meshes) from code, or checks
// them. The files are committed; tests/unit/meshgen fails when they differ from this output.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cosim/meshgen/check.hpp"
#include "cosim/meshgen/robotino.hpp"
#include "cosim/meshgen/stl.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/cli.hpp"
#include "cosim/util/exit_codes.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cosim::meshgen;

using cosim::util::kExitBadInput;
using cosim::util::kExitOk;
constexpr int kExitCheckFailed = 1;

std::string summary(const robotino::PartFile& part, std::size_t bytes, const MeshReport& r) {
  char line[256];
  const auto& lo = r.bounds.min();
  const auto& hi = r.bounds.max();
  std::snprintf(line, sizeof line,
                "%-20s %-6s %5zu triangles %7zu bytes  %zu shell(s)  volume %.3e m^3  "
                "x [%.4f, %.4f] y [%.4f, %.4f] z [%.4f, %.4f]",
                part.file.c_str(), part.ascii ? "ascii" : "binary", r.triangles, bytes, r.shells,
                r.volume_m3, lo.x(), hi.x(), lo.y(), hi.y(), lo.z(), hi.z());
  return line;
}

bool report_problems(const std::string& where, const MeshReport& r) {
  for (const std::string& p : r.problems)
    std::fprintf(stderr, "cosim-meshgen: %s: %s\n", where.c_str(), p.c_str());
  return r.ok();
}

int write_all(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "cosim-meshgen: cannot create %s: %s\n", cosim::platform::utf8(dir).c_str(),
                 ec.message().c_str());
    return kExitBadInput;
  }
  bool ok = true;
  for (const robotino::PartFile& part : robotino::parts()) {
    // Never write a mesh that fails the check.
    const MeshReport r = check_mesh(part.mesh);
    if (!report_problems(part.file, r)) {
      ok = false;
      continue;
    }
    const std::string bytes = robotino::file_bytes(part);
    const fs::path path = dir / part.file;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "cosim-meshgen: cannot write %s\n", cosim::platform::utf8(path).c_str());
      return kExitBadInput;
    }
    std::printf("%s\n", summary(part, bytes.size(), r).c_str());
  }
  return ok ? kExitOk : kExitCheckFailed;
}

int check_all(const std::optional<fs::path>& dir) {
  bool all_ok = true;
  for (const robotino::PartFile& part : robotino::parts()) {
    const MeshReport r = check_mesh(part.mesh);
    bool ok = report_problems(part.file, r);
    const std::string bytes = robotino::file_bytes(part);
    // What a reader gets back must be just as closed (vertices merged by their float values).
    ok = report_problems(part.file + " (read back)", check_mesh(read_stl(bytes))) && ok;
    if (dir) {
      const fs::path path = *dir / part.file;
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cosim-meshgen: %s: missing or unreadable\n", cosim::platform::utf8(path).c_str());
        ok = false;
      } else {
        const std::string on_disk((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
        if (on_disk != bytes) {
          std::fprintf(stderr,
                       "cosim-meshgen: %s: differs from the generated mesh (%zu bytes on disk, "
                       "%zu generated); regenerate with: cosim-meshgen %s\n",
                       cosim::platform::utf8(path).c_str(), on_disk.size(), bytes.size(), cosim::platform::utf8(*dir).c_str());
          ok = false;
        }
        try {
          ok = report_problems(path.string(), check_mesh(read_stl(on_disk))) && ok;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "cosim-meshgen: %s: %s\n", cosim::platform::utf8(path).c_str(), e.what());
          ok = false;
        }
      }
    }
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", summary(part, bytes.size(), r).c_str());
    all_ok = all_ok && ok;
  }
  return all_ok ? kExitOk : kExitCheckFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim-meshgen: builds the Robotino's non-primitive parts procedurally and writes them as STL, or "
               "checks them",
               "cosim-meshgen"};
  app.set_version_flag("--version", std::string("cosim-meshgen ") + COSIM_VERSION);
  fs::path out_dir;
  std::string check_dir;
  auto* out = cosim::util::add_path_option(app, "OUTDIR", out_dir, "write every mesh into OUTDIR (created if missing)")
                  ->type_name("DIR");
  auto* check = app.add_option("--check", check_dir,
                               "check that every mesh is closed (each edge shared by exactly two triangles in "
                               "opposite directions), outward oriented and of positive volume; with DIR, also that "
                               "DIR's files are exactly what would be written and read back closed")
                    ->expected(0, 1)
                    ->type_name("[DIR]");
  out->excludes(check);
  app.footer("Examples:\n"
             "  cosim-meshgen scenes/robotino/meshes          regenerate the committed meshes\n"
             "  cosim-meshgen --check scenes/robotino/meshes  what tests/unit/meshgen checks\n"
             "Exit status: 0 ok, 1 a check failed, 2 bad usage or a file that cannot be written/read.");
  if (const int code = cosim::util::parse_command_line(app, argc, argv); code >= 0) return code;
  try {
    if (check->count() > 0) {
      return check_all(check_dir.empty() ? std::nullopt
                                         : std::optional<fs::path>(cosim::platform::path_from_utf8(check_dir)));
    }
    if (out->count() > 0) return write_all(out_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosim-meshgen: %s\n", e.what());
    return kExitCheckFailed;
  }
  std::fprintf(stderr, "cosim-meshgen: error: expected OUTDIR or --check [DIR] (see --help)\n");
  return kExitBadInput;
}
