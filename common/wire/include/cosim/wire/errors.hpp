#pragma once
/// \file
/// Error codes of the wire layer. I/O and protocol failures are returned as
/// std::error_code (never thrown); only channel setup throws (ChannelSetupError).

#include <system_error>

namespace cosim::wire {

/// Why a wire operation failed. Zero is reserved for "no error" (std::error_code convention).
enum class Errc {
  peer_closed = 1,    ///< the other side closed its end (EOF / EPIPE)
  timeout,            ///< nothing (or not everything) arrived/left before the deadline
  interrupted,        ///< request_stop() was called while waiting
  bad_magic,          ///< frame header does not start with "CSIM"
  frame_too_large,    ///< frame length above the configured cap
  malformed_payload,  ///< protobuf rejected the payload bytes
  empty_envelope,     ///< envelope parsed but has no body set
  io_error,           ///< unexpected OS error on the channel
  injected_fault,     ///< failure injected by a test decorator (wire::testing::with_faults)
};

/// The "cosim.wire" category; messages are short, lower-case phrases.
const std::error_category& wire_category() noexcept;

/// Makes `std::error_code ec = Errc::timeout;` work.
std::error_code make_error_code(Errc e) noexcept;

}  // namespace cosim::wire

template <>
struct std::is_error_code_enum<cosim::wire::Errc> : std::true_type {};
