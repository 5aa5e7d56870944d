#include "cosim/protocol/channel_spec.hpp"

#include <unistd.h>

#include <cstdlib>

#include "cosim/util/errors.hpp"

namespace cosim::protocol {

ChannelSpec parse_channel_spec(std::string_view text) {
  ChannelSpec spec;
  spec.text = std::string(text);
  if (text == "none") {
    spec.kind = ChannelSpec::Kind::none;
    return spec;
  }
  if (text.starts_with("fifo:")) {
    const std::string_view dir = text.substr(5);
    if (dir.empty()) throw util::BadInputError("--channel fifo:DIR needs a directory, got '" + spec.text + "'");
    spec.kind = ChannelSpec::Kind::fifo;
    spec.fifo_dir = std::filesystem::path(std::string(dir));
    return spec;
  }
  if (text.starts_with("pipe:")) {
    throw util::BadInputError("--channel '" + spec.text + "': Windows named pipes are not available on this platform; use fifo:DIR");
  }
  if (text.starts_with("tcp:") || text.starts_with("shm:") || text.starts_with("mem:")) {
    throw util::BadInputError("--channel '" + spec.text + "': not implemented in this build; use fifo:DIR or none");
  }
  throw util::BadInputError("--channel '" + spec.text + "': expected fifo:DIR or none");
}

std::string default_channel_text() {
  const char* tmp = std::getenv("TMPDIR");
  return std::string("fifo:") + (tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cosim-" +
         std::to_string(geteuid());
}

}  // namespace cosim::protocol
