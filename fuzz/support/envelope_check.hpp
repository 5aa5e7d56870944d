#pragma once
/// \file
/// Envelope comparisons for the wire fuzz targets (framing, cosimlog).

#include <cosim/v1/cosim.pb.h>
#include <cosim/wire/framing.hpp>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "support/fuzz_support.hpp"

namespace cosim::fuzz {

/// Deterministic serialization: equal bytes <=> equal messages, NaN payloads included (a
/// MessageDifferencer would call NaN != NaN).
inline std::string canonical(const cosim::v1::Envelope& env) {
  env.ByteSizeLong();  // caches the sizes SerializeWithCachedSizes() writes
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    env.SerializeWithCachedSizes(&coded);
  }
  return out;
}

/// The canonical bytes of `payload` decoded into a fresh Envelope (so decode_payload's
/// in-place reuse path is not taken), or "" with `ec` set.
inline std::string decode_fresh(std::span<const std::byte> payload, std::error_code& ec) {
  cosim::v1::Envelope fresh;
  ec = cosim::wire::decode_payload(payload, fresh);
  if (ec) return {};
  return canonical(fresh);
}

/// encode() then parse_header() + decode_payload() must give `env` back, and the header
/// must state the payload's length.
inline void check_round_trip(const cosim::v1::Envelope& env, std::string_view what) {
  std::string framed;
  cosim::wire::encode(env, framed);
  const std::string expected = canonical(env);
  const auto bytes = std::as_bytes(std::span<const char>(framed));
  check(bytes.size() >= cosim::wire::kHeaderBytes, std::string(what) + ": encode() wrote no header");
  std::uint32_t payload_bytes = 0;
  check(!cosim::wire::parse_header(bytes.first<cosim::wire::kHeaderBytes>(),
                                   std::numeric_limits<std::uint32_t>::max(), payload_bytes),
        std::string(what) + ": encode() wrote a header parse_header() rejects");
  check(payload_bytes == bytes.size() - cosim::wire::kHeaderBytes,
        std::string(what) + ": encode()'s header length differs from its payload");
  std::error_code ec;
  const std::string back = decode_fresh(bytes.subspan(cosim::wire::kHeaderBytes), ec);
  check(!ec, std::string(what) + ": decoding an encode()d envelope failed: " + ec.message());
  check(back == expected, std::string(what) + ": encode() then decode_payload() changed the envelope");
}

}  // namespace cosim::fuzz
