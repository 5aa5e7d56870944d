// "shm:NAME": a shared-memory segment with one ring per direction (wire::ShmChannel, Linux).

#include <unistd.h>

#include "channel_kinds.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/wire/shm_channel.hpp"

namespace cosim::protocol::detail {
// Named: every kind defines check, open_dynamics, ... and a unity build compiles them together.
namespace shm_kind {
namespace {

void check(std::string_view address, const std::string& text) {
  if (const std::string why = wire::ShmChannel::name_problem(address); !why.empty()) {
    throw util::BadInputError("--channel '" + text + "': shm:NAME needs a valid NAME: " + why);
  }
}

wire::ShmOptions options(const ChannelSpec& spec, std::chrono::milliseconds open_timeout) {
  return {spec.address, open_timeout};
}

std::unique_ptr<wire::Channel> open_dynamics(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                             const ChannelNotice&) {
  return wire::ShmChannel::listen(options(spec, open_timeout));
}

std::unique_ptr<wire::Channel> open_visual(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                           const ChannelNotice&) {
  return wire::ShmChannel::connect(options(spec, open_timeout));
}

// Segment names are system-wide (/dev/shm): the scratch folder's unique name, the tag and
// our pid keep tests and concurrent runs apart. Invalid characters become '_'; a name too
// long loses its start, keeping the unique end of the folder name, the tag and the pid.
std::string scratch_address(const std::filesystem::path& scratch_dir, std::string_view tag) {
  std::string name = scratch_dir.filename().string() + "-" + std::string(tag) + "-" + std::to_string(::getpid());
  for (char& c : name) {
    const bool valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
    if (!valid) c = '_';
  }
  if (name.size() > wire::kShmMaxNameBytes) name.erase(0, name.size() - wire::kShmMaxNameBytes);
  return name;
}

}  // namespace
}  // namespace shm_kind

ChannelKind shm_channel_kind() {
  using namespace shm_kind;
  return {"shm", "shm:NAME", "shared memory (Boost.Interprocess), one ring per direction; the fastest local path", "",
          check, open_dynamics, open_visual, scratch_address};
}

}  // namespace cosim::protocol::detail
