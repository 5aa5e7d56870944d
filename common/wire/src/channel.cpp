#include <cosim/wire/channel.hpp>

namespace cosim::wire {

ChannelSetupError::ChannelSetupError(Kind kind, const std::string& what)
    : std::runtime_error(what), kind_(kind) {}

ChannelSetupError::Kind ChannelSetupError::kind() const noexcept { return kind_; }

}  // namespace cosim::wire
