#include <cosim/wire/errors.hpp>

#include <string>

namespace cosim::wire {
namespace {

class WireCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "cosim.wire"; }

  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::peer_closed: return "peer closed the channel";
      case Errc::timeout: return "timed out";
      case Errc::interrupted: return "interrupted by a stop request";
      case Errc::bad_magic: return "bad frame magic (expected \"CSIM\")";
      case Errc::frame_too_large: return "frame length above the configured cap";
      case Errc::malformed_payload: return "malformed protobuf payload";
      case Errc::empty_envelope: return "envelope has no body";
      case Errc::io_error: return "I/O error on the channel";
      case Errc::injected_fault: return "injected fault (test decorator)";
    }
    return "unknown cosim.wire error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& wire_category() noexcept {
  static const WireCategory category;
  return category;
}

std::error_code make_error_code(Errc e) noexcept {
  return {static_cast<int>(e), wire_category()};
}

}  // namespace cosim::wire
