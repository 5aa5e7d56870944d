#pragma once
/// \file
/// The channel a launched run uses when --channel is not given: one only this run knows.
/// Its kind is the system's (src/posix/, src/windows/); the launch logic does not ask which.

#include <filesystem>
#include <string>

namespace cosim::launcher {

struct PrivateChannel {
  std::string spec;                       ///< the --channel value for both sides
  /// Where its files live (cosim-dynamics makes it), removed at the end if still there;
  /// empty if none.
  std::filesystem::path folder_to_remove;
};

/// A new private channel. Throws util::OutputError when it cannot be made.
PrivateChannel make_private_channel();

}  // namespace cosim::launcher
