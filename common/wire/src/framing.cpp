#include <cosim/wire/errors.hpp>
#include <cosim/wire/framing.hpp>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include <climits>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace cosim::wire {
namespace {

constexpr std::uint8_t kLengthDelimited = 2;  // protobuf wire type of an embedded message

// Tag byte of Envelope field `number` when it fits one byte (numbers 1..15).
constexpr int single_byte_tag(int number) {
  return number <= 15 ? (number << 3) | kLengthDelimited : -1;
}

}  // namespace

void encode(const cosim::v1::Envelope& env, std::string& out) {
  const std::size_t payload = env.ByteSizeLong();
  if (payload > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("cosim::wire::encode: envelope of " + std::to_string(payload) +
                            " bytes does not fit a frame");
  }
  // resize() keeps the capacity: no allocation once `out` is warm.
  out.resize(kHeaderBytes + payload);
  auto* p = reinterpret_cast<std::uint8_t*>(out.data());
  std::memcpy(p, kMagic, sizeof kMagic);
  const auto n = static_cast<std::uint32_t>(payload);
  p[4] = static_cast<std::uint8_t>(n);
  p[5] = static_cast<std::uint8_t>(n >> 8);
  p[6] = static_cast<std::uint8_t>(n >> 16);
  p[7] = static_cast<std::uint8_t>(n >> 24);
  // Sizes were cached by ByteSizeLong() just above.
  env.SerializeWithCachedSizesToArray(p + kHeaderBytes);
}

std::error_code parse_header(std::span<const std::byte, kHeaderBytes> header,
                             std::uint32_t max_payload_bytes,
                             std::uint32_t& payload_bytes) noexcept {
  if (std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) return Errc::bad_magic;
  const auto b = [&](std::size_t i) { return std::to_integer<std::uint32_t>(header[i]); };
  const std::uint32_t n = b(4) | (b(5) << 8) | (b(6) << 16) | (b(7) << 24);
  if (n > max_payload_bytes) return Errc::frame_too_large;
  payload_bytes = n;
  return {};
}

std::error_code decode_payload(std::span<const std::byte> payload, cosim::v1::Envelope& env) {
  // libprotobuf reports some parse failures itself (invalid UTF-8 in a string) on stderr; a
  // bad payload is our error to report, in one line: keep its own log out of it.
  static std::once_flag quiet;
  std::call_once(quiet, [] { google::protobuf::SetLogHandler(nullptr); });
  if (payload.size() > static_cast<std::size_t>(INT_MAX)) return Errc::malformed_payload;
  const auto* data = reinterpret_cast<const std::uint8_t*>(payload.data());
  const int size = static_cast<int>(payload.size());

  // ParseFromArray() would Clear() the envelope, which deletes the oneof sub-message, so
  // every message would allocate its body again. When the payload starts with the body
  // already held, clear that body in place and merge instead: same result, no allocation.
  const int held = static_cast<int>(env.body_case());
  const bool reuse = held != 0 && size > 0 && data[0] == single_byte_tag(held) &&
                     env.GetReflection()->GetUnknownFields(env).empty();
  bool ok = false;
  if (reuse) {
    const auto* field = env.GetDescriptor()->FindFieldByNumber(held);
    env.GetReflection()->MutableMessage(&env, field)->Clear();
    google::protobuf::io::CodedInputStream in(data, size);
    ok = env.MergeFromCodedStream(&in) && in.ConsumedEntireMessage();
  } else {
    ok = env.ParseFromArray(data, size);
  }
  if (!ok) return Errc::malformed_payload;
  if (env.body_case() == cosim::v1::Envelope::BODY_NOT_SET) return Errc::empty_envelope;
  return {};
}

}  // namespace cosim::wire
