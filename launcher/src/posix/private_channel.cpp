#include <system_error>

#include "private_channel.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::launcher {

PrivateChannel make_private_channel() {
  // A fresh 0700 folder: cosim-dynamics accepts a folder its user owns and others cannot
  // open, and makes its FIFOs inside.
  try {
    const auto dir = platform::make_private_temp_dir("cosim-fifo.");
    return {.spec = "fifo:" + platform::utf8(dir), .folder_to_remove = dir};
  } catch (const std::system_error& e) {
    throw util::OutputError(std::string("private channel: ") + e.what());
  }
}

}  // namespace cosim::launcher
