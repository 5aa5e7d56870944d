#include <cosim/wire/errors.hpp>
#include <cosim/wire/message_stream.hpp>

#include <algorithm>

namespace cosim::wire {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Once a message has started, its rest gets at least this long (slow peer, big frame).
constexpr milliseconds kRestOfMessageMin{1000};
// Longer waits are "forever"; the cap keeps now + wait from overflowing.
constexpr milliseconds kRestOfMessageMax = std::chrono::hours(24 * 365);

}  // namespace

MessageStream::MessageStream(Channel& channel, std::uint32_t max_payload_bytes)
    : channel_(channel), max_payload_bytes_(max_payload_bytes) {
  // Room for a header and a typical Frame / ProbeReport: most sessions never grow it.
  send_buffer_.reserve(4096);
  receive_buffer_.resize(4096);
}

std::error_code MessageStream::send(const cosim::v1::Envelope& env, milliseconds timeout) {
  sent_size_ = 0;
  encode(env, send_buffer_);
  // The peer would reject it anyway; refusing here keeps the stream in sync.
  if (send_buffer_.size() - kHeaderBytes > max_payload_bytes_) return Errc::frame_too_large;
  const auto bytes = std::as_bytes(std::span<const char>(send_buffer_));
  if (auto ec = channel_.write_all(bytes, timeout)) return ec;
  sent_size_ = send_buffer_.size();
  return {};
}

std::error_code MessageStream::receive(cosim::v1::Envelope& env, milliseconds timeout) {
  received_size_ = 0;
  timeout = std::max(timeout, milliseconds::zero());
  std::byte* buf = receive_buffer_.data();

  // A 1-byte read is all-or-nothing, so a timeout here never loses stream sync.
  if (auto ec = channel_.read_exact({buf, 1}, timeout)) return ec;

  const milliseconds rest = std::clamp(timeout, kRestOfMessageMin, kRestOfMessageMax);
  const auto deadline = Clock::now() + rest;
  if (auto ec = channel_.read_exact({buf + 1, kHeaderBytes - 1}, rest)) return ec;

  std::uint32_t payload_bytes = 0;
  if (auto ec = parse_header(std::span<const std::byte, kHeaderBytes>(buf, kHeaderBytes),
                             max_payload_bytes_, payload_bytes)) {
    return ec;
  }
  const std::size_t frame_bytes = kHeaderBytes + payload_bytes;
  if (receive_buffer_.size() < frame_bytes) {
    receive_buffer_.resize(frame_bytes);  // grows to the largest frame seen, within the cap
    buf = receive_buffer_.data();
  }

  const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
  if (auto ec = channel_.read_exact({buf + kHeaderBytes, payload_bytes},
                                    std::max(left, milliseconds::zero()))) {
    return ec;
  }
  received_size_ = frame_bytes;
  return decode_payload({buf + kHeaderBytes, payload_bytes}, env);
}

std::span<const std::byte> MessageStream::last_sent_bytes() const {
  return std::as_bytes(std::span<const char>(send_buffer_.data(), sent_size_));
}

std::span<const std::byte> MessageStream::last_received_bytes() const {
  return {receive_buffer_.data(), received_size_};
}

Channel& MessageStream::channel() { return channel_; }

}  // namespace cosim::wire
