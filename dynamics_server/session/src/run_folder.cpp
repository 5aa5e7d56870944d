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
  if (ec) throw util::BadInputError("--out " + dir.string() + ": cannot create: " + ec.message());
  RunFolder folder{dir};
  if (fs::exists(folder.run_json()) || fs::exists(folder.dynamics_csv())) {
    throw util::BadInputError("--out " + dir.string() + ": already holds a run; choose another folder or remove it");
  }
  return folder;
}

std::filesystem::path default_run_dir(const std::string& backend) {
  return std::filesystem::path("runs") / (util::utc_compact_timestamp() + "-" + backend);
}

}  // namespace cosim::dynamics
