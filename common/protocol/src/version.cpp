#include "cosim/protocol/version.hpp"

#include <algorithm>

#include "cosim/util/errors.hpp"

namespace cosim::protocol {

const char* software_version() noexcept { return COSIM_SOFTWARE_VERSION; }

std::string version_string(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string version_banner(const std::string& program) {
  return program + " " + software_version() + " (protocol " + version_string(kProtocolMajor, kProtocolMinor) + ")";
}

std::uint32_t negotiate(std::uint32_t own_major, std::uint32_t own_minor, const v1::ProtocolVersion& peer,
                        const std::string& own_side, const std::string& peer_side) {
  if (peer.major() != own_major) {
    throw util::VersionMismatchError("protocol major version mismatch: " + own_side + " speaks " +
                                     version_string(own_major, own_minor) + ", " + peer_side + " speaks " +
                                     version_string(peer.major(), peer.minor()));
  }
  return std::min(own_minor, peer.minor());
}

const char* body_name(const v1::Envelope& envelope) noexcept {
  switch (envelope.body_case()) {
    case v1::Envelope::kHello: return "Hello";
    case v1::Envelope::kWelcome: return "Welcome";
    case v1::Envelope::kFrame: return "Frame";
    case v1::Envelope::kProbeReport: return "ProbeReport";
    case v1::Envelope::kBye: return "Bye";
    case v1::Envelope::kError: return "Error";
    case v1::Envelope::BODY_NOT_SET: break;
  }
  return "empty Envelope";
}

}  // namespace cosim::protocol
