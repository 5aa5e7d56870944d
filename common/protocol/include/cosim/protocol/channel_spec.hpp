#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace cosim::protocol {

/// A parsed `--channel` value.
struct ChannelSpec {
  enum class Kind { none = 1, fifo };
  Kind kind = Kind::none;
  std::filesystem::path fifo_dir;  ///< for fifo:DIR
  std::string text;                ///< as given, for messages
};

/// "none" or "fifo:DIR". Throws util::BadInputError naming the value and the valid forms
/// ("pipe:NAME" is Windows only and "tcp:" / "shm:" are not implemented yet: said so).
ChannelSpec parse_channel_spec(std::string_view text);

/// The channel both sides use when none is given: "fifo:$TMPDIR/cosim-<euid>" (TMPDIR
/// defaulting to /tmp), so two processes started by hand find each other.
std::string default_channel_text();

}  // namespace cosim::protocol
