// Golden wire bytes: one canonical Envelope per body type, encoded with its header, must
// match tests/golden/<type>.bin byte for byte, so an accidental wire change fails CI.
//
// To regenerate after an intended change of cosim.proto:
//   COSIM_REGENERATE_GOLDEN=1 ./cosim_wire_tests --gtest_filter='*Golden.*'
// That run writes the files and FAILS on purpose; review the diff, then rerun without it.

#include "wire_test_support.hpp"

#include <cosim/wire/framing.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace cosim::wire {
namespace {

using google::protobuf::util::MessageDifferencer;
using test::Canonical;
using test::canonical_envelopes;
using test::encoded;

std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(COSIM_GOLDEN_DIR) / (name + ".bin");
}

bool regenerating() {
  const char* v = std::getenv("COSIM_REGENERATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

std::string hex_around(const std::vector<std::byte>& v, std::size_t at) {
  std::ostringstream os;
  const std::size_t from = at < 4 ? 0 : at - 4;
  for (std::size_t i = from; i < std::min(v.size(), at + 5); ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, i == at ? "[%02x] " : "%02x ", std::to_integer<unsigned>(v[i]));
    os << buf;
  }
  return os.str();
}

class Golden : public ::testing::TestWithParam<Canonical> {};

TEST_P(Golden, EncodingMatchesGoldenFileByteForByte) {
  const auto& c = GetParam();
  const auto actual = encoded(c.envelope);
  const auto path = golden_path(c.name);

  if (regenerating()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(actual.data()), static_cast<std::streamsize>(actual.size()));
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    FAIL() << "regenerated " << path << " (" << actual.size()
           << " bytes); unset COSIM_REGENERATE_GOLDEN and rerun to compare";
  }

  const auto expected = read_file(path);
  ASSERT_FALSE(expected.empty()) << path << " is missing or empty; generate it with "
                                 << "COSIM_REGENERATE_GOLDEN=1 (see test_golden.cpp)";
  std::size_t first_diff = 0;
  while (first_diff < std::min(actual.size(), expected.size()) && actual[first_diff] == expected[first_diff]) {
    ++first_diff;
  }
  EXPECT_EQ(actual.size(), expected.size()) << "wire size of " << c.name << " changed";
  EXPECT_TRUE(actual == expected) << c.name << ": wire bytes differ from " << path << " at offset "
                                  << first_diff << "\n  expected: " << hex_around(expected, first_diff)
                                  << "\n  actual:   " << hex_around(actual, first_diff);
}

TEST_P(Golden, GoldenFileDecodesToTheCanonicalValues) {
  const auto& c = GetParam();
  const auto bytes = read_file(golden_path(c.name));
  ASSERT_GE(bytes.size(), kHeaderBytes) << golden_path(c.name);

  std::uint32_t length = 0;
  ASSERT_FALSE(parse_header(std::span(bytes).first<kHeaderBytes>(), kDefaultMaxPayloadBytes, length));
  ASSERT_EQ(length, bytes.size() - kHeaderBytes);
  cosim::v1::Envelope env;
  ASSERT_FALSE(decode_payload(std::span(bytes).subspan(kHeaderBytes), env));
  EXPECT_TRUE(MessageDifferencer::Equals(env, c.envelope)) << env.DebugString();
}

INSTANTIATE_TEST_SUITE_P(EveryBodyType, Golden, ::testing::ValuesIn(canonical_envelopes()),
                         [](const auto& info) { return info.param.name; });

// Spot checks written out by hand, independent of canonical_envelopes(): a wrong canonical
// value would otherwise agree with itself.
TEST(GoldenValues, HandWrittenFieldChecks) {
  const auto decode = [](const std::string& name) {
    const auto bytes = read_file(golden_path(name));
    cosim::v1::Envelope env;
    EXPECT_GE(bytes.size(), kHeaderBytes) << name;
    if (bytes.size() >= kHeaderBytes) {
      EXPECT_FALSE(decode_payload(std::span(bytes).subspan(kHeaderBytes), env)) << name;
    }
    return env;
  };
  const auto hello = decode("hello").hello();
  EXPECT_EQ(hello.protocol().major(), 1u);
  EXPECT_EQ(hello.protocol().minor(), 2u);
  EXPECT_EQ(hello.backend(), "kinematic");
  ASSERT_EQ(hello.joint_names_size(), 3);
  EXPECT_EQ(hello.joint_names(2), "robotino/wheel_2");
  EXPECT_EQ(hello.mode(), cosim::v1::MODE_LOCKSTEP);
  EXPECT_EQ(hello.fps(), 30.0);
  EXPECT_EQ(hello.sim_end_s(), 50.0);
  EXPECT_EQ(hello.frame_count(), 1500u);

  const auto welcome = decode("welcome").welcome();
  EXPECT_EQ(welcome.scene(), "robotino_rose");
  EXPECT_EQ(welcome.joint_mapping().matched(), 3u);
  EXPECT_EQ(welcome.joint_mapping().missing_in_hello(0), "robotino/gripper");
  EXPECT_EQ(welcome.peer_kind(), "recorder");

  const auto frame = decode("frame").frame();
  EXPECT_EQ(frame.seq(), 42u);
  EXPECT_EQ(frame.sim_time_s(), 1.4);
  ASSERT_EQ(frame.joint_values_size(), 3);
  EXPECT_EQ(frame.joint_values(1), -2.5);
  EXPECT_EQ(frame.sent_ns(), 123'456'789'012'345);

  const auto report = decode("probe_report").probe_report();
  EXPECT_EQ(report.frame_seq(), 42u);
  ASSERT_EQ(report.positions_m_size(), 6);
  EXPECT_EQ(report.positions_m(3), -0.3);
  EXPECT_EQ(report.reported_ns() - report.received_ns(), 11'000);
  EXPECT_EQ(report.frames_skipped(), 2u);

  const auto bye = decode("bye").bye();
  EXPECT_EQ(bye.reason(), "end of run");
  EXPECT_EQ(bye.frames_handled(), 1500u);

  const auto error = decode("error").error();
  EXPECT_EQ(error.code(), cosim::v1::ERROR_CODE_JOINT_MISMATCH);
  EXPECT_NE(error.message().find("robotino/arm_0"), std::string::npos);
}

TEST(GoldenValues, FrameHeaderBytesAreLiteral) {
  // The first 8 bytes of frame.bin, spelled out: "CSIM" then the length, little-endian.
  const auto bytes = read_file(golden_path("frame"));
  ASSERT_GE(bytes.size(), kHeaderBytes);
  const unsigned char magic[] = {0x43, 0x53, 0x49, 0x4d};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(std::to_integer<unsigned>(bytes[i]), magic[i]);
  const std::size_t length = bytes.size() - kHeaderBytes;
  EXPECT_EQ(std::to_integer<std::size_t>(bytes[4]), length & 0xff);
  EXPECT_EQ(std::to_integer<unsigned>(bytes[5]), 0u);
  EXPECT_EQ(std::to_integer<unsigned>(bytes[6]), 0u);
  EXPECT_EQ(std::to_integer<unsigned>(bytes[7]), 0u);
}

TEST(GoldenValues, EveryBodyTypeHasAGoldenCase) {
  // A body added to Envelope without a golden case fails here.
  std::set<int> covered;
  for (const auto& c : canonical_envelopes()) covered.insert(static_cast<int>(c.envelope.body_case()));
  const auto* oneof = cosim::v1::Envelope::descriptor()->FindOneofByName("body");
  ASSERT_NE(oneof, nullptr);
  for (int i = 0; i < oneof->field_count(); ++i) {
    EXPECT_TRUE(covered.count(oneof->field(i)->number())) << "no golden case for " << oneof->field(i)->name();
  }
}

}  // namespace
}  // namespace cosim::wire
