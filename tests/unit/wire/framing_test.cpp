// Framing: encode / parse_header / decode_payload, every acceptance and rejection path.

#include "wire_test_support.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/framing.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>

namespace cosim::wire {
namespace {

using google::protobuf::util::MessageDifferencer;
using test::AllocationProbe;
using test::bytes_of;
using test::canonical_envelopes;
using test::encoded;
using test::make_frame;
using test::payload_of;

std::array<std::byte, kHeaderBytes> header_bytes(const char magic[4], std::uint32_t length) {
  std::array<std::byte, kHeaderBytes> h{};
  std::memcpy(h.data(), magic, 4);
  for (int i = 0; i < 4; ++i) h[4 + i] = static_cast<std::byte>(length >> (8 * i));
  return h;
}

TEST(Framing, RoundTripOfEveryBodyType) {
  for (const auto& c : canonical_envelopes()) {
    SCOPED_TRACE(c.name);
    const auto frame = encoded(c.envelope);
    ASSERT_GE(frame.size(), kHeaderBytes);
    EXPECT_EQ(std::memcmp(frame.data(), "CSIM", 4), 0);

    std::uint32_t length = 0;
    ASSERT_FALSE(parse_header(std::span(frame).first<kHeaderBytes>(), kDefaultMaxPayloadBytes, length));
    EXPECT_EQ(length, frame.size() - kHeaderBytes);
    EXPECT_EQ(length, c.envelope.ByteSizeLong());

    cosim::v1::Envelope back;
    ASSERT_FALSE(decode_payload(payload_of(frame), back));
    EXPECT_EQ(back.body_case(), c.envelope.body_case());
    EXPECT_TRUE(MessageDifferencer::Equals(back, c.envelope)) << back.DebugString();
  }
}

TEST(Framing, HeaderLengthIsLittleEndian) {
  const auto h = header_bytes("CSIM", 0x00030201);
  EXPECT_EQ(h[4], std::byte{0x01});
  std::uint32_t length = 0;
  ASSERT_FALSE(parse_header(h, 1u << 20, length));
  EXPECT_EQ(length, 0x00030201u);
}

TEST(Framing, EncodeClearsAndReusesItsBuffer) {
  std::string out = "stale bytes that must disappear";
  encode(make_frame(1, 3), out);
  EXPECT_EQ(out.size(), kHeaderBytes + make_frame(1, 3).ByteSizeLong());
  EXPECT_EQ(out.compare(0, 4, "CSIM"), 0);

  const auto frame = make_frame(2, 3);
  AllocationProbe probe;
  encode(frame, out);
  EXPECT_EQ(probe.count(), 0u) << "encode allocated although its buffer was warm";
}

TEST(Framing, BadMagicIsRejectedWhateverByteIsWrong) {
  for (int i = 0; i < 4; ++i) {
    char magic[4] = {'C', 'S', 'I', 'M'};
    magic[i] ^= 0x20;  // "cSIM", "CsIM", ...
    std::uint32_t length = 77;
    EXPECT_EQ(parse_header(header_bytes(magic, 10), kDefaultMaxPayloadBytes, length), Errc::bad_magic) << i;
    EXPECT_EQ(length, 77u) << "output written on failure";
  }
}

TEST(Framing, CapIsInclusive) {
  std::uint32_t length = 0;
  EXPECT_FALSE(parse_header(header_bytes("CSIM", 1000), 1000, length));
  EXPECT_EQ(length, 1000u);
  EXPECT_EQ(parse_header(header_bytes("CSIM", 1001), 1000, length), Errc::frame_too_large);
  EXPECT_FALSE(parse_header(header_bytes("CSIM", 0), 1000, length));
  EXPECT_EQ(length, 0u);
}

TEST(Framing, HugeClaimIsRejectedFromTheHeaderAloneWithoutAllocating) {
  // 4 GiB - 1 claimed, 1 MiB allowed: must fail before any buffer exists.
  const auto h = header_bytes("CSIM", 0xFFFFFFFFu);
  std::uint32_t length = 0;
  AllocationProbe probe;
  EXPECT_EQ(parse_header(h, kDefaultMaxPayloadBytes, length), Errc::frame_too_large);
  EXPECT_EQ(probe.count(), 0u);
}

TEST(Framing, BadMagicWinsOverLength) {
  std::uint32_t length = 0;
  EXPECT_EQ(parse_header(header_bytes("XXXX", 0xFFFFFFFFu), 16, length), Errc::bad_magic);
}

TEST(Framing, EveryTruncationOfAPayloadIsMalformed) {
  for (const auto& c : canonical_envelopes()) {
    SCOPED_TRACE(c.name);
    const auto frame = encoded(c.envelope);
    const auto payload = payload_of(frame);
    for (std::size_t n = 1; n < payload.size(); ++n) {
      cosim::v1::Envelope env;
      EXPECT_EQ(decode_payload(payload.first(n), env), Errc::malformed_payload) << "kept " << n << " bytes";
    }
  }
}

TEST(Framing, MalformedProtobufBytesAreRejected) {
  const std::vector<std::vector<std::byte>> cases = {
      bytes_of({0x0F}),                    // field 1 with invalid wire type 7
      bytes_of({0x1A, 0xFF}),              // frame: length varint cut short
      bytes_of({0x1A, 0x05, 0x08}),        // frame claims 5 bytes, has 1
      bytes_of({0x1A, 0x02, 0x11, 0x00}),  // frame.sim_time_s (fixed64) cut short
      bytes_of({0x00}),                    // tag 0 is never valid
      bytes_of({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}),  // overlong varint
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    cosim::v1::Envelope env;
    EXPECT_EQ(decode_payload(cases[i], env), Errc::malformed_payload) << "case " << i;
  }
}

TEST(Framing, EnvelopeWithoutBodyIsRejected) {
  cosim::v1::Envelope env;
  EXPECT_EQ(decode_payload({}, env), Errc::empty_envelope);

  // Only an unknown field (a newer minor's body we do not know): parses, but no body.
  EXPECT_EQ(decode_payload(bytes_of({0x98, 0x06, 0x01}), env), Errc::empty_envelope);

  // And what encode() makes of an empty Envelope.
  const auto frame = encoded(cosim::v1::Envelope{});
  EXPECT_EQ(frame.size(), kHeaderBytes);
  EXPECT_EQ(decode_payload(payload_of(frame), env), Errc::empty_envelope);
}

TEST(Framing, UnknownFieldsNextToABodyAreAccepted) {
  // Minor versions add fields: a body plus an unknown field must decode.
  auto bytes = encoded(make_frame(3, 2));
  const auto extra = bytes_of({0x98, 0x06, 0x07});
  bytes.insert(bytes.end(), extra.begin(), extra.end());
  cosim::v1::Envelope env;
  ASSERT_FALSE(decode_payload(payload_of(bytes), env));
  EXPECT_EQ(env.frame().seq(), 3u);
}

// Decoding into a reused Envelope must give exactly what a fresh ParseFromArray gives.
void expect_same_as_fresh_parse(cosim::v1::Envelope& reused, std::span<const std::byte> payload) {
  cosim::v1::Envelope fresh;
  const bool fresh_ok = fresh.ParseFromArray(payload.data(), static_cast<int>(payload.size()));
  const auto ec = decode_payload(payload, reused);
  EXPECT_EQ(ec == Errc::malformed_payload, !fresh_ok);
  if (fresh_ok) {
    EXPECT_TRUE(MessageDifferencer::Equals(reused, fresh))
        << "reused:\n" << reused.DebugString() << "fresh:\n" << fresh.DebugString();
    EXPECT_EQ(reused.GetReflection()->GetUnknownFields(reused).field_count(),
              fresh.GetReflection()->GetUnknownFields(fresh).field_count());
  }
}

TEST(Framing, DecodeIntoAReusedEnvelopeEqualsAFreshParse) {
  cosim::v1::Envelope env;
  const auto long_frame = encoded(make_frame(1, 5));
  const auto short_frame = encoded(make_frame(2, 2));
  const auto hello = encoded(canonical_envelopes()[0].envelope);

  expect_same_as_fresh_parse(env, payload_of(long_frame));
  expect_same_as_fresh_parse(env, payload_of(short_frame));  // no joint values left over
  EXPECT_EQ(env.frame().joint_values_size(), 2);
  expect_same_as_fresh_parse(env, payload_of(hello));  // body type changes
  expect_same_as_fresh_parse(env, payload_of(long_frame));

  // Frame with an unknown field, then a plain frame: the unknown field must go.
  auto with_unknown = payload_of(short_frame);
  std::vector<std::byte> unknown(with_unknown.begin(), with_unknown.end());
  for (const auto b : bytes_of({0x98, 0x06, 0x01})) unknown.push_back(b);
  expect_same_as_fresh_parse(env, unknown);
  expect_same_as_fresh_parse(env, payload_of(long_frame));

  // Frame followed by a Hello field: last oneof member wins, as in a fresh parse.
  std::vector<std::byte> two(payload_of(long_frame).begin(), payload_of(long_frame).end());
  two.insert(two.end(), payload_of(hello).begin(), payload_of(hello).end());
  expect_same_as_fresh_parse(env, payload_of(long_frame));
  expect_same_as_fresh_parse(env, two);
  EXPECT_TRUE(env.has_hello());

  // Two frame fields: merged, as in a fresh parse.
  std::vector<std::byte> merged(payload_of(long_frame).begin(), payload_of(long_frame).end());
  merged.insert(merged.end(), payload_of(short_frame).begin(), payload_of(short_frame).end());
  expect_same_as_fresh_parse(env, payload_of(long_frame));
  expect_same_as_fresh_parse(env, merged);
  EXPECT_EQ(env.frame().joint_values_size(), 7);

  // A trailing zero tag is malformed both ways.
  std::vector<std::byte> zero_tag(payload_of(short_frame).begin(), payload_of(short_frame).end());
  zero_tag.push_back(std::byte{0});
  expect_same_as_fresh_parse(env, payload_of(long_frame));
  expect_same_as_fresh_parse(env, zero_tag);
}

TEST(Framing, DecodingTheSameBodyTypeAgainDoesNotAllocate) {
  cosim::v1::Envelope env;
  const auto a = encoded(make_frame(1, 9));
  const auto b = encoded(make_frame(2, 9));
  // Twice first: the first reuse builds protobuf's lazy, process-wide reflection tables.
  ASSERT_FALSE(decode_payload(payload_of(a), env));
  ASSERT_FALSE(decode_payload(payload_of(b), env));
  AllocationProbe probe;
  ASSERT_FALSE(decode_payload(payload_of(a), env));
  EXPECT_EQ(probe.count(), 0u);
  EXPECT_EQ(env.frame().seq(), 1u);
}

}  // namespace
}  // namespace cosim::wire
