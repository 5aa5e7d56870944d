#pragma once

#include <cstdint>
#include <string>

#include "cosim/v1/cosim.pb.h"

namespace cosim::protocol {

/// The protocol this build speaks. Bump the major only for a wire break (field meaning
/// changed or removed); add fields under a new minor.
inline constexpr std::uint32_t kProtocolMajor = 1;
inline constexpr std::uint32_t kProtocolMinor = 1;  // 1.1: Frame.last_* (latest probe delay)

/// Software version of the cosim build, e.g. "0.1.0".
const char* software_version() noexcept;

/// "1.0"
std::string version_string(std::uint32_t major, std::uint32_t minor);

/// What `--version` prints: "cosim-recorder 0.1.0 (protocol 1.0)".
std::string version_banner(const std::string& program);

/// Checks a peer's version against ours. Returns the accepted minor (the smaller one).
/// Throws util::VersionMismatchError naming both versions when the majors differ.
std::uint32_t negotiate(std::uint32_t own_major, std::uint32_t own_minor, const v1::ProtocolVersion& peer,
                        const std::string& own_side, const std::string& peer_side);

/// "hello", "frame", ... for messages.
const char* body_name(const v1::Envelope& envelope) noexcept;

}  // namespace cosim::protocol
