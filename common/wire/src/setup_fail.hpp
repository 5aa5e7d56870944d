#pragma once
// The channels' one way to fail while opening (private to cosim::wire).

#include "cosim/wire/channel.hpp"

#include <string>

namespace cosim::wire::detail {

[[noreturn]] inline void fail(ChannelSetupError::Kind kind, const std::string& what) {
  throw ChannelSetupError(kind, what);
}

}  // namespace cosim::wire::detail
