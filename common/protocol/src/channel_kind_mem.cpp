// "mem:NAME": an in-process channel joining two threads of one process (tests).

#include "channel_kinds.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/mem_channel.hpp"

namespace cosim::protocol::detail {
// Named: every kind defines check, open_dynamics, ... and a unity build compiles them together.
namespace mem_kind {
namespace {

void check(std::string_view address, const std::string& text) {
  if (address.empty()) throw util::BadInputError("--channel mem:NAME needs a name, got '" + text + "'");
}

std::unique_ptr<wire::Channel> open_dynamics(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                             const ChannelNotice&) {
  return wire::listen_mem_channel(spec.address, open_timeout);
}

std::unique_ptr<wire::Channel> open_visual(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                           const ChannelNotice&) {
  return wire::connect_mem_channel(spec.address, open_timeout);
}

// Names are process-wide: the scratch folder's unique name keeps tests apart.
std::string scratch_address(const std::filesystem::path& scratch_dir, std::string_view tag) {
  return scratch_dir.filename().string() + "/" + std::string(tag);
}

}  // namespace
}  // namespace mem_kind

ChannelKind mem_channel_kind() {
  using namespace mem_kind;
  return {"mem", "mem:NAME", "in-process channel between two threads of one program (tests)", "",
          check, open_dynamics, open_visual, scratch_address};
}

}  // namespace cosim::protocol::detail
