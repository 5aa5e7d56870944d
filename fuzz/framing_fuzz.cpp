// Fuzz target: the receiving side of the wire. The input is a byte stream as a peer could
// send it; it goes through MessageStream::receive() over an in-memory channel (the path the
// programs read a peer with), once with the default 1 MiB cap and once with a 64-byte cap.
//
// Oracles, besides the sanitizers:
// - the stream yields exactly the frames that parse_header() + decode_payload() find when
//   applied directly to the bytes, each decoded into a fresh Envelope (so decode_payload's
//   in-place reuse of one Envelope must give the same messages as a plain parse), ends with
//   the same error code, and reports each frame's bytes in last_received_bytes();
// - every decoded Envelope survives encode() -> parse_header() -> decode_payload();
// - errors are wire error codes only: no exception may escape.

#include <cosim/v1/cosim.pb.h>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/framing.hpp>
#include <cosim/wire/mem_channel.hpp>
#include <cosim/wire/message_stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "support/envelope_check.hpp"
#include "support/fuzz_support.hpp"

namespace {

namespace wire = cosim::wire;
using cosim::fuzz::canonical;
using cosim::fuzz::check;
using cosim::v1::Envelope;

// What a reader of `bytes` must see, worked out frame by frame without MessageStream.
struct Expected {
  struct Message {
    std::size_t offset;  // [bytes] where its frame starts in the input
    std::size_t size;    // [bytes] header + payload
    std::string canonical;
  };
  std::vector<Message> messages;
  std::error_code end;  // the error that ends the stream
};

Expected parse_directly(std::span<const std::byte> bytes, std::uint32_t cap) {
  Expected out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t left = bytes.size() - at;
    // The writer closed the channel: between frames or inside one, the reader sees peer_closed.
    if (left < wire::kHeaderBytes) {
      out.end = wire::Errc::peer_closed;
      return out;
    }
    std::uint32_t payload_bytes = 0;
    if (auto ec = wire::parse_header(bytes.subspan(at).first<wire::kHeaderBytes>(), cap, payload_bytes)) {
      out.end = ec;
      return out;
    }
    check(payload_bytes <= cap, "parse_header() accepted a length above the cap");
    if (left - wire::kHeaderBytes < payload_bytes) {
      out.end = wire::Errc::peer_closed;
      return out;
    }
    std::error_code ec;
    std::string decoded = cosim::fuzz::decode_fresh(bytes.subspan(at + wire::kHeaderBytes, payload_bytes), ec);
    if (ec) {
      out.end = ec;
      return out;
    }
    const std::size_t size = wire::kHeaderBytes + payload_bytes;
    out.messages.push_back({at, size, std::move(decoded)});
    at += size;
  }
}

void receive_all(std::span<const std::byte> bytes, std::uint32_t cap) {
  const Expected expected = parse_directly(bytes, cap);

  auto [writer, reader] = wire::make_mem_channel_pair();
  // An anonymous mem pair has an unbounded buffer: the whole input fits without a reader.
  if (!bytes.empty()) {
    check(!writer->write_all(bytes, std::chrono::milliseconds(0)), "mem channel write failed");
  }
  writer->close();

  wire::MessageStream stream(*reader, cap);
  Envelope env;  // reused across messages, as the sessions do
  std::size_t received = 0;
  for (;;) {
    // Timeout 0 never waits here: every byte is buffered and the writer is closed.
    const std::error_code ec = stream.receive(env, std::chrono::milliseconds(0));
    if (ec) {
      check(received == expected.messages.size(),
            "MessageStream stopped after " + std::to_string(received) + " messages, the bytes hold " +
                std::to_string(expected.messages.size()) + " (" + ec.message() + ")");
      check(ec == expected.end, "MessageStream ended with '" + ec.message() + "', parsing the bytes ends with '" +
                                    expected.end.message() + "'");
      check(ec.category() == wire::wire_category(), "MessageStream returned a non-wire error: " + ec.message());
      return;
    }
    check(received < expected.messages.size(), "MessageStream returned a message the bytes do not hold");
    const Expected::Message& m = expected.messages[received];
    check(env.body_case() != Envelope::BODY_NOT_SET, "receive() succeeded with an empty envelope");
    check(canonical(env) == m.canonical,
          "message " + std::to_string(received) + ": the reused Envelope differs from a fresh decode");
    const std::span<const std::byte> frame = stream.last_received_bytes();
    check(frame.size() == m.size && std::equal(frame.begin(), frame.end(), bytes.begin() + m.offset),
          "last_received_bytes() is not the frame that was read");
    cosim::fuzz::check_round_trip(env, "message " + std::to_string(received));
    ++received;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return cosim::fuzz::guarded([&] {
    const auto bytes = std::as_bytes(std::span(data, size));
    receive_all(bytes, wire::kDefaultMaxPayloadBytes);
    receive_all(bytes, 64);  // small cap: frame_too_large within reach of short inputs
  });
}
