#include "cosim/dynamics/run_folder.hpp"

#include <system_error>

#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::dynamics {

RunFolder create_run_folder(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw util::BadInputError("--out " + dir.string() + ": exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw util::OutputError("--out " + dir.string() + ": cannot create: " + ec.message());
  RunFolder folder{dir};
  if (fs::exists(folder.run_json()) || fs::exists(folder.dynamics_csv())) {
    throw util::BadInputError("--out " + dir.string() + ": already holds a run; choose another folder or remove it");
  }
  return folder;
}

RunFolder create_new_run_folder(const std::filesystem::path& base) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!base.parent_path().empty()) fs::create_directories(base.parent_path(), ec);
  if (ec) throw util::OutputError(base.parent_path().string() + ": cannot create: " + ec.message());
  for (int n = 1; n <= 1000; ++n) {
    const fs::path dir = n == 1 ? base : fs::path(base.string() + "-" + std::to_string(n));
    if (fs::create_directory(dir, ec)) return RunFolder{dir};
    if (ec) throw util::OutputError(dir.string() + ": cannot create: " + ec.message());
  }
  throw util::OutputError(base.string() + ": 1000 run folders of that name exist already");
}

std::filesystem::path default_run_dir(const std::string& backend) {
  return std::filesystem::path("runs") / (util::utc_compact_timestamp() + "-" + backend);
}

}  // namespace cosim::dynamics
