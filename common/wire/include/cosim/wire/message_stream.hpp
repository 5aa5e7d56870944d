#pragma once
/// \file
/// Envelope framing on top of a Channel, with buffers reused across messages.

#include <cosim/v1/cosim.pb.h>
#include <cosim/wire/channel.hpp>
#include <cosim/wire/framing.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

namespace cosim::wire {

/// Sends and receives framed Envelopes. Once its buffers fit the largest message seen,
/// send() and receive() allocate nothing. Not thread-safe beyond what Channel allows
/// (one sending thread and one receiving thread).
class MessageStream {
 public:
  /// \param max_payload_bytes cap on a frame's payload length [bytes], both directions.
  explicit MessageStream(Channel& channel,
                         std::uint32_t max_payload_bytes = kDefaultMaxPayloadBytes);

  /// Encodes and writes one Envelope.
  /// \param timeout longest wait for the peer to drain the channel [ms].
  /// \return Errc::frame_too_large (nothing written) if the payload exceeds the cap,
  ///         or a Channel::write_all error.
  std::error_code send(const cosim::v1::Envelope& env, std::chrono::milliseconds timeout);

  /// Reads and decodes one Envelope.
  /// \param timeout longest wait for a message to start [ms]; 0 returns Errc::timeout at
  ///        once when no byte is pending. Once the first byte has arrived, the rest is
  ///        awaited up to max(timeout, 1 s).
  /// \return Channel errors, parse_header / decode_payload errors, or {}. After any error
  ///         but a timeout before the first byte, the stream is out of sync: close it.
  std::error_code receive(cosim::v1::Envelope& env, std::chrono::milliseconds timeout);

  /// Framed bytes (header + payload) of the last successful send(); empty after a failed
  /// one. Valid until the next send().
  std::span<const std::byte> last_sent_bytes() const;

  /// Framed bytes of the last received frame (set as soon as the whole frame has been read,
  /// even if decoding it failed); empty after other failures. Valid until the next receive().
  std::span<const std::byte> last_received_bytes() const;

  /// The underlying channel.
  Channel& channel();

  /// The payload cap [bytes].
  std::uint32_t max_payload_bytes() const noexcept { return max_payload_bytes_; }

 private:
  Channel& channel_;
  std::uint32_t max_payload_bytes_;
  std::string send_buffer_;
  std::size_t sent_size_ = 0;  // [bytes] of send_buffer_ that form the last sent frame
  std::vector<std::byte> receive_buffer_;
  std::size_t received_size_ = 0;  // [bytes] of receive_buffer_ that form the last frame
};

}  // namespace cosim::wire
