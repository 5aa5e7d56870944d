// cosimlog: write/read round trip, and the documented errors for bad files.

#include "wire_test_support.hpp"

#include <cosim/wire/cosimlog.hpp>
#include <cosim/wire/mem_channel.hpp>
#include <cosim/wire/message_stream.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace cosim::wire {
namespace {

namespace fs = std::filesystem;
using google::protobuf::util::MessageDifferencer;
using test::canonical_envelopes;
using test::encoded;
using test::TempDir;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// Expects `f` to throw std::runtime_error whose message contains every `parts`.
template <class F>
void expect_runtime_error(F f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    for (const auto& part : parts) EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
  }
}

// Writes every canonical envelope, alternating directions; returns the record start offsets.
std::vector<std::size_t> write_canonical_log(const fs::path& path) {
  CosimLogWriter writer(path, 1, 3);
  std::vector<std::size_t> offsets;
  std::size_t at = std::string("COSIMLOG 1 cosim.v1 1.3\n").size();
  std::int64_t t = 1'000'000;
  for (std::size_t i = 0; i < canonical_envelopes().size(); ++i) {
    const auto frame = encoded(canonical_envelopes()[i].envelope);
    writer.append(i % 2 == 0 ? Direction::to_visual : Direction::to_dynamics, t + static_cast<std::int64_t>(i), frame);
    offsets.push_back(at);
    at += 9 + frame.size();
  }
  return offsets;
}

TEST(CosimLog, RoundTripOfEveryBodyType) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  write_canonical_log(path);

  CosimLogReader reader(path);
  EXPECT_EQ(reader.proto_major(), 1u);
  EXPECT_EQ(reader.proto_minor(), 3u);
  CosimLogReader::Record r;
  const auto cases = canonical_envelopes();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.dir, i % 2 == 0 ? Direction::to_visual : Direction::to_dynamics);
    EXPECT_EQ(r.t_ns, 1'000'000 + static_cast<std::int64_t>(i));
    EXPECT_TRUE(MessageDifferencer::Equals(r.envelope, cases[i].envelope));
    EXPECT_EQ(r.framed_bytes, encoded(cases[i].envelope));
  }
  EXPECT_FALSE(reader.next(r));
  EXPECT_FALSE(reader.next(r)) << "end of file is sticky";
}

TEST(CosimLog, FileLayoutIsAsDocumented) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  const auto frame = encoded(canonical_envelopes()[2].envelope);
  {
    CosimLogWriter writer(path, 1, 0);
    writer.append(Direction::to_dynamics, -5, frame);  // negative times survive too
    writer.flush();
    EXPECT_GT(fs::file_size(path), 0u) << "flush() reaches the file";
  }
  const std::string bytes = slurp(path);
  const std::string header = "COSIMLOG 1 cosim.v1 1.0\n";
  ASSERT_EQ(bytes.size(), header.size() + 1 + 8 + frame.size());
  EXPECT_EQ(bytes.substr(0, header.size()), header);
  EXPECT_EQ(static_cast<unsigned char>(bytes[header.size()]), 0x02);
  for (int i = 0; i < 8; ++i) {  // -5 as little-endian two's complement
    EXPECT_EQ(static_cast<unsigned char>(bytes[header.size() + 1 + i]), i == 0 ? 0xFB : 0xFF) << i;
  }
  EXPECT_EQ(bytes.substr(header.size() + 9, 4), "CSIM");
  CosimLogReader reader(path);
  CosimLogReader::Record r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.t_ns, -5);
}

TEST(CosimLog, RecordsWhatAMessageStreamExchanged) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  auto [a, b] = make_mem_channel_pair();
  MessageStream dynamics(*a), visual(*b);
  {
    CosimLogWriter log(path, 1, 0);
    cosim::v1::Envelope got;
    ASSERT_FALSE(dynamics.send(test::make_frame(1, 3), std::chrono::milliseconds(100)));
    log.append(Direction::to_visual, 10, dynamics.last_sent_bytes());
    ASSERT_FALSE(visual.receive(got, std::chrono::milliseconds(100)));
    ASSERT_FALSE(visual.send(test::make_report(1, 2), std::chrono::milliseconds(100)));
    ASSERT_FALSE(dynamics.receive(got, std::chrono::milliseconds(100)));
    log.append(Direction::to_dynamics, 20, dynamics.last_received_bytes());
  }
  CosimLogReader reader(path);
  CosimLogReader::Record r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.envelope.frame().seq(), 1u);
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.envelope.probe_report().positions_m_size(), 6);
  EXPECT_FALSE(reader.next(r));
}

TEST(CosimLog, WriterRefusesBytesThatAreNotOneWholeFrame) {
  TempDir tmp;
  CosimLogWriter writer(tmp / "x.cosimlog", 1, 0);
  const auto frame = encoded(test::make_frame(1, 2));
  EXPECT_THROW(writer.append(Direction::to_visual, 0, std::span(frame).first(frame.size() - 1)), std::invalid_argument);
  EXPECT_THROW(writer.append(Direction::to_visual, 0, std::span(frame).first(4)), std::invalid_argument);
  auto bad_magic = frame;
  bad_magic[0] = std::byte{'X'};
  EXPECT_THROW(writer.append(Direction::to_visual, 0, bad_magic), std::invalid_argument);
  EXPECT_THROW(writer.append(static_cast<Direction>(7), 0, frame), std::invalid_argument);
}

TEST(CosimLog, WriterNamesAPathItCannotCreate) {
  TempDir tmp;
  const auto path = tmp / "no-such-dir" / "frames.cosimlog";
  expect_runtime_error([&] { CosimLogWriter(path, 1, 0); }, {path.string(), "cannot create"});
}

TEST(CosimLog, EveryTruncationIsReportedWithRecordAndOffset) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  const auto offsets = write_canonical_log(path);
  const std::string full = slurp(path);
  const std::size_t last = offsets.back();
  const auto cut = tmp / "cut.cosimlog";
  for (std::size_t size = last + 1; size < full.size(); ++size) {
    write_file(cut, full.substr(0, size));
    CosimLogReader reader(cut);
    CosimLogReader::Record r;
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i) ASSERT_TRUE(reader.next(r));
    expect_runtime_error([&] { reader.next(r); },
                         {cut.string() + ": record " + std::to_string(offsets.size()) + " at byte offset " +
                              std::to_string(last) + ": ",
                          "truncated"});
  }
  // Cut exactly between records: a clean, shorter log.
  write_file(cut, full.substr(0, last));
  CosimLogReader reader(cut);
  CosimLogReader::Record r;
  std::size_t n = 0;
  while (reader.next(r)) ++n;
  EXPECT_EQ(n, offsets.size() - 1);
}

TEST(CosimLog, HugeClaimedLengthIsTruncationNotAnAllocation) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  std::string bytes = "COSIMLOG 1 cosim.v1 1.0\n";
  bytes += '\x01';
  bytes += std::string(8, '\0');
  bytes += "CSIM";
  bytes += std::string("\xff\xff\xff\xff", 4);  // 4 GiB - 1 claimed
  bytes += "tiny";
  write_file(path, bytes);
  CosimLogReader reader(path);
  CosimLogReader::Record r;
  test::AllocationProbe probe;
  expect_runtime_error([&] { reader.next(r); }, {"record 1 at byte offset 24", "truncated", "4294967295"});
  EXPECT_LT(probe.largest(), std::size_t{1} << 20);
}

TEST(CosimLog, CorruptRecordsAreReported) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  const auto offsets = write_canonical_log(path);
  const std::string full = slurp(path);

  std::string bad_dir = full;
  bad_dir[offsets[1]] = '\x07';
  write_file(path, bad_dir);
  {
    CosimLogReader reader(path);
    CosimLogReader::Record r;
    ASSERT_TRUE(reader.next(r));
    expect_runtime_error([&] { reader.next(r); },
                         {"record 2 at byte offset " + std::to_string(offsets[1]), "direction byte 0x07"});
  }

  std::string bad_magic = full;
  bad_magic[offsets[0] + 9] = 'X';
  write_file(path, bad_magic);
  {
    CosimLogReader reader(path);
    CosimLogReader::Record r;
    expect_runtime_error([&] { reader.next(r); }, {"record 1 at byte offset " + std::to_string(offsets[0]), "magic"});
  }

  std::string bad_payload = full;
  bad_payload[offsets[0] + 9 + 8] = '\x0F';  // invalid wire type in the first tag
  write_file(path, bad_payload);
  {
    CosimLogReader reader(path);
    CosimLogReader::Record r;
    expect_runtime_error([&] { reader.next(r); }, {"record 1", "malformed"});
  }
}

TEST(CosimLog, GarbageHeaderIsNotACosimlog) {
  TempDir tmp;
  const auto path = tmp / "x.cosimlog";
  for (const std::string& bad : {std::string("hello world\n"), std::string("COSIMLOG 1 cosim.v1 1\n"),
                                std::string("COSIMLOG 1 cosim.v1 1.x\n"), std::string("COSIMLOG 1 cosim.v1 1.0"),
                                std::string(100, 'A'), std::string("\x89PNG\r\n\x1a\n", 8), std::string()}) {
    write_file(path, bad);
    expect_runtime_error([&] { CosimLogReader reader(path); }, {path.string() + ": not a cosimlog ("});
  }
  write_file(path, "COSIMLOG 2 cosim.v1 1.0\n");
  expect_runtime_error([&] { CosimLogReader reader(path); }, {"not a cosimlog (", "unsupported"});
  write_file(path, "COSIMLOG 1 cosim.v2 2.0\n");
  expect_runtime_error([&] { CosimLogReader reader(path); }, {"not a cosimlog (", "unsupported"});
}

TEST(CosimLog, MissingFileIsNamed) {
  TempDir tmp;
  const auto path = tmp / "missing.cosimlog";
  expect_runtime_error([&] { CosimLogReader reader(path); }, {path.string(), "cannot open"});
}

TEST(CosimLog, EmptyLogHasNoRecords) {
  TempDir tmp;
  const auto path = tmp / "frames.cosimlog";
  { CosimLogWriter writer(path, 2, 7); }
  CosimLogReader reader(path);
  EXPECT_EQ(reader.proto_major(), 2u);
  EXPECT_EQ(reader.proto_minor(), 7u);
  CosimLogReader::Record r;
  EXPECT_FALSE(reader.next(r));
}

}  // namespace
}  // namespace cosim::wire
