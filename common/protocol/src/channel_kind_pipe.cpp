// "pipe:NAME": one duplex Windows named pipe \\.\pipe\NAME (wire::PipeChannel).

#include "channel_kinds.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/pipe_channel.hpp"

namespace cosim::protocol::detail {
// Named: every kind defines check, open_dynamics, ... and a unity build compiles them together.
namespace pipe_kind {
namespace {

void check(std::string_view address, const std::string& text) {
  if (address.empty()) throw util::BadInputError("--channel pipe:NAME needs a name, got '" + text + "'");
  if (address.find('\\') != std::string_view::npos) {
    throw util::BadInputError("--channel '" + text + "': a pipe name has no backslash (pipe:NAME opens \\\\.\\pipe\\NAME)");
  }
}

wire::PipeOptions options(const ChannelSpec& spec, std::chrono::milliseconds open_timeout) {
  return {spec.address, open_timeout};
}

std::unique_ptr<wire::Channel> open_dynamics(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                             const ChannelNotice&) {
  return wire::PipeChannel::listen(options(spec, open_timeout));
}

std::unique_ptr<wire::Channel> open_visual(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                           const ChannelNotice&) {
  return wire::PipeChannel::connect(options(spec, open_timeout));
}

// Pipe names are system-wide: the scratch folder's unique name keeps tests apart. Nothing
// is created in the folder (a pipe lives as long as its server handle).
std::string scratch_address(const std::filesystem::path& scratch_dir, std::string_view tag) {
  return "cosim-" + platform::utf8(scratch_dir.filename()) + "-" + std::string(tag);
}

}  // namespace
}  // namespace pipe_kind

ChannelKind pipe_channel_kind() {
  using namespace pipe_kind;
  return {"pipe", "pipe:NAME", "Windows named pipe \\\\.\\pipe\\NAME (one duplex pipe, this user only)", "",
          check, open_dynamics, open_visual, scratch_address};
}

}  // namespace cosim::protocol::detail
