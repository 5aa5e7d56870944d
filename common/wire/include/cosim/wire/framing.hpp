#pragma once
/// \file
/// Frame format: 8-byte header ("CSIM" + uint32 little-endian payload length [bytes]),
/// then the serialized cosim::v1::Envelope.

#include <cosim/v1/cosim.pb.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>

namespace cosim::wire {

/// Size of the frame header [bytes]: 4-byte magic + 4-byte payload length.
inline constexpr std::size_t kHeaderBytes = 8;

/// Default cap on a frame's payload length [bytes] (1 MiB).
inline constexpr std::uint32_t kDefaultMaxPayloadBytes = 1u << 20;

/// The 4 magic bytes that start every frame.
inline constexpr char kMagic[4] = {'C', 'S', 'I', 'M'};

/// Serializes `env` with its header into `out`. `out` is cleared and reused, so once its
/// capacity fits the largest message, encoding allocates nothing.
/// Throws std::length_error if the payload does not fit a uint32 length (cannot happen
/// with protobuf's 2 GiB message limit, checked anyway).
void encode(const cosim::v1::Envelope& env, std::string& out);

/// Validates the magic and the cap before anything is allocated.
/// On success stores the payload length [bytes] in `payload_bytes`.
/// \return Errc::bad_magic, Errc::frame_too_large (length > max_payload_bytes), or {}.
std::error_code parse_header(std::span<const std::byte, kHeaderBytes> header,
                             std::uint32_t max_payload_bytes,
                             std::uint32_t& payload_bytes) noexcept;

/// Parses a payload into `env` (previous contents replaced; reusing one Envelope for
/// messages of the same body type allocates nothing once warm).
/// \return Errc::malformed_payload if protobuf rejects the bytes, Errc::empty_envelope if
///         no body is set; `env` is unspecified after an error.
std::error_code decode_payload(std::span<const std::byte> payload, cosim::v1::Envelope& env);

}  // namespace cosim::wire
