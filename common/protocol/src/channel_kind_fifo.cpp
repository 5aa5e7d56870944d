// "fifo:DIR": two POSIX FIFOs in DIR (wire::FifoChannel).

#include "channel_kinds.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/fifo_channel.hpp"

namespace cosim::protocol::detail {
// Named: every kind defines check, open_dynamics, ... and a unity build compiles them together.
namespace fifo_kind {
namespace {

void check(std::string_view address, const std::string& text) {
  if (address.empty()) throw util::BadInputError("--channel fifo:DIR needs a directory, got '" + text + "'");
}

wire::FifoOptions options(const ChannelSpec& spec, std::chrono::milliseconds open_timeout) {
  return {std::filesystem::path(spec.address), open_timeout};
}

std::unique_ptr<wire::Channel> open_dynamics(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                             const ChannelNotice&) {
  return wire::FifoChannel::listen(options(spec, open_timeout));
}

std::unique_ptr<wire::Channel> open_visual(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                           const ChannelNotice&) {
  return wire::FifoChannel::connect(options(spec, open_timeout));
}

// The dynamics side creates DIR itself (mode 0700), so a fresh name under scratch_dir.
std::string scratch_address(const std::filesystem::path& scratch_dir, std::string_view tag) {
  return (scratch_dir / std::string(tag)).string();
}

}  // namespace
}  // namespace fifo_kind

ChannelKind fifo_channel_kind() {
  using namespace fifo_kind;
  return {"fifo", "fifo:DIR", "two POSIX FIFOs in DIR (created mode 0700 by the dynamics side)", "",
          check, open_dynamics, open_visual, scratch_address};
}

}  // namespace cosim::protocol::detail
