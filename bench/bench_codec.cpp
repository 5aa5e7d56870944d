// Encode + decode of one Frame Envelope as the frame loop does it: 24 joint values
// (the Robotino), buffers reused, header included.
#include <benchmark/benchmark.h>

#include <span>
#include <string>

#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/framing.hpp"

namespace {

cosim::v1::Envelope robotino_frame() {
  cosim::v1::Envelope envelope;
  auto* frame = envelope.mutable_frame();
  frame->set_seq(123456);
  frame->set_sim_time_s(12.35);
  for (int i = 0; i < 24; ++i) frame->add_joint_values(0.1 * i - 1.234567);
  frame->set_sent_ns(987654321012345);
  return envelope;
}

void BM_FrameEncode(benchmark::State& state) {
  const auto envelope = robotino_frame();
  std::string wire;
  for (auto _ : state) {
    cosim::wire::encode(envelope, wire);
    benchmark::DoNotOptimize(wire.data());
  }
}
BENCHMARK(BM_FrameEncode);

void BM_FrameDecode(benchmark::State& state) {
  std::string wire;
  cosim::wire::encode(robotino_frame(), wire);
  const auto* bytes = reinterpret_cast<const std::byte*>(wire.data());
  cosim::v1::Envelope decoded;
  for (auto _ : state) {
    std::uint32_t payload = 0;
    auto ec = cosim::wire::parse_header(std::span<const std::byte, cosim::wire::kHeaderBytes>(bytes, 8),
                                        cosim::wire::kDefaultMaxPayloadBytes, payload);
    ec = cosim::wire::decode_payload(std::span<const std::byte>(bytes + 8, payload), decoded);
    benchmark::DoNotOptimize(ec);
    benchmark::DoNotOptimize(decoded.frame().seq());
  }
}
BENCHMARK(BM_FrameDecode);

void BM_FrameEncodeDecode(benchmark::State& state) {
  auto envelope = robotino_frame();
  std::string wire;
  cosim::v1::Envelope decoded;
  std::uint64_t seq = 0;
  for (auto _ : state) {
    envelope.mutable_frame()->set_seq(++seq);
    cosim::wire::encode(envelope, wire);
    const auto* bytes = reinterpret_cast<const std::byte*>(wire.data());
    std::uint32_t payload = 0;
    auto ec = cosim::wire::parse_header(std::span<const std::byte, cosim::wire::kHeaderBytes>(bytes, 8),
                                        cosim::wire::kDefaultMaxPayloadBytes, payload);
    ec = cosim::wire::decode_payload(std::span<const std::byte>(bytes + 8, payload), decoded);
    benchmark::DoNotOptimize(ec);
  }
  if (decoded.frame().seq() != seq) state.SkipWithError("decoded frame differs");
}
BENCHMARK(BM_FrameEncodeDecode);

}  // namespace

BENCHMARK_MAIN();
