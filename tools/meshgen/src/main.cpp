// cosim-meshgen: writes the Robotino's STL meshes (scenes/robotino/meshes) from code, or checks
// them. The files are committed; tests/unit/meshgen fails when they differ from this output.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/meshgen/check.hpp"
#include "cosim/meshgen/robotino.hpp"
#include "cosim/meshgen/stl.hpp"
#include "cosim/platform/paths.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cosim::meshgen;

// DESIGN.md "User interface conventions" (cosim/util/exit_codes.hpp).
constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;
constexpr int kExitBadInput = 2;

constexpr const char* kUsage =
    "usage: cosim-meshgen OUTDIR\n"
    "       cosim-meshgen --check [DIR]\n"
    "\n"
    "Builds the Robotino's non-primitive parts procedurally and writes them as STL.\n"
    "\n"
    "  OUTDIR          write every mesh into OUTDIR (created if missing), e.g.\n"
    "                  cosim-meshgen scenes/robotino/meshes\n"
    "  --check [DIR]   check that every mesh is closed (each edge shared by exactly two\n"
    "                  triangles in opposite directions), outward oriented and of positive\n"
    "                  volume; with DIR, also that DIR's files are exactly what would be\n"
    "                  written and read back closed\n"
    "  --help          this text\n"
    "  --version       the version\n"
    "\n"
    "Exit status: 0 ok, 1 a check failed, 2 bad usage or a file that cannot be written/read.\n";

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
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  try {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (args.size() == 1 && args[0] == "--version") {
      std::printf("cosim-meshgen %s\n", COSIM_VERSION);
      return kExitOk;
    }
    if (!args.empty() && args[0] == "--check" && args.size() <= 2) {
      return check_all(args.size() == 2 ? std::optional<fs::path>(args[1]) : std::nullopt);
    }
    if (args.size() == 1 && !args[0].starts_with("-")) return write_all(fs::path(args[0]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosim-meshgen: %s\n", e.what());
    return kExitCheckFailed;
  }
  std::fprintf(stderr, "cosim-meshgen: bad usage: expected OUTDIR or --check [DIR] (try --help)\n");
  return kExitBadInput;
}
