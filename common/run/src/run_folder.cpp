#include "cosim/run/run_folder.hpp"

#include <system_error>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::run {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void cannot_create(const fs::path& dir, std::error_code ec) {
  throw util::OutputError(platform::utf8(dir) + ": cannot create: " + platform::error_text(ec));
}

}  // namespace

fs::path default_run_dir(const std::string& backend) {
  return fs::path("runs") / platform::path_from_utf8(util::utc_compact_timestamp() + "-" + backend);
}

RunFolder create_run_folder(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw util::BadInputError("--out " + platform::utf8(dir) + ": exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw util::OutputError("--out " + platform::utf8(dir) + ": cannot create: " + platform::error_text(ec));
  RunFolder folder{dir};
  if (fs::exists(folder.run_json(), ec) || fs::exists(folder.dynamics_csv(), ec)) {
    throw util::BadInputError("--out " + platform::utf8(dir) + ": already holds a run; choose another folder or remove it");
  }
  return folder;
}

RunFolder create_new_run_folder(const fs::path& base) {
  std::error_code ec;
  if (base.has_parent_path()) {
    fs::create_directories(base.parent_path(), ec);
    if (ec) cannot_create(base.parent_path(), ec);
  }
  for (int n = 1; n <= 1000; ++n) {
    fs::path dir = base;
    if (n > 1) {
      dir += "-";  // two steps: GCC 12 warns falsely (-Wrestrict) on "-" + std::to_string(n)
      dir += std::to_string(n);
    }
    if (fs::create_directory(dir, ec)) return RunFolder{dir};
    if (ec) cannot_create(dir, ec);
  }
  throw util::OutputError(platform::utf8(base) + ": 1000 run folders of that name exist already");
}

}  // namespace cosim::run
