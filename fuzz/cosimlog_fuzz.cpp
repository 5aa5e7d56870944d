// Fuzz target: the .cosimlog reader (replay reads recordings users hand it). The input is
// written to a file in this process's scratch folder and read record by record with
// CosimLogReader.
//
// Oracles, besides the sanitizers:
// - the only error is std::runtime_error whose what() starts with "<path>: " (cosimlog.hpp);
// - every record has a valid direction, its framed_bytes are one whole frame (header length =
//   payload size), and its envelope equals a fresh decode of that payload (the reader reuses
//   one Envelope across records); after the clean end, next() stays false;
// - the records read, written again with CosimLogWriter, read back identical.

#include <cosim/v1/cosim.pb.h>
#include <cosim/wire/cosimlog.hpp>
#include <cosim/wire/framing.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/envelope_check.hpp"
#include "support/fuzz_support.hpp"

namespace {

namespace wire = cosim::wire;
using cosim::fuzz::check;

struct Recorded {
  wire::Direction dir;
  std::int64_t t_ns;
  std::vector<std::byte> framed_bytes;
  std::string canonical;
};

void check_record(const wire::CosimLogReader::Record& r, std::size_t index) {
  const std::string who = "record " + std::to_string(index + 1);
  check(r.dir == wire::Direction::to_visual || r.dir == wire::Direction::to_dynamics, who + ": invalid direction");
  check(r.framed_bytes.size() >= wire::kHeaderBytes, who + ": framed_bytes shorter than a header");
  const std::span<const std::byte> framed(r.framed_bytes);
  std::uint32_t payload_bytes = 0;
  check(!wire::parse_header(framed.first<wire::kHeaderBytes>(), std::numeric_limits<std::uint32_t>::max(),
                            payload_bytes),
        who + ": framed_bytes has a bad header");
  check(payload_bytes == framed.size() - wire::kHeaderBytes, who + ": header length differs from the payload");
  check(r.envelope.body_case() != cosim::v1::Envelope::BODY_NOT_SET, who + ": empty envelope");
  std::error_code ec;
  const std::string fresh = cosim::fuzz::decode_fresh(framed.subspan(wire::kHeaderBytes), ec);
  check(!ec, who + ": its payload does not decode: " + ec.message());
  check(fresh == cosim::fuzz::canonical(r.envelope), who + ": envelope differs from a fresh decode of its bytes");
}

// Writes `records` with CosimLogWriter and reads them back: they must come back unchanged.
void check_rewrite(const std::filesystem::path& path, std::uint32_t major, std::uint32_t minor,
                   const std::vector<Recorded>& records) {
  {
    wire::CosimLogWriter writer(path, major, minor);
    for (const Recorded& r : records) writer.append(r.dir, r.t_ns, r.framed_bytes);
    writer.flush();
  }
  wire::CosimLogReader reader(path);
  check(reader.proto_major() == major && reader.proto_minor() == minor, "rewritten log: version changed");
  wire::CosimLogReader::Record r;
  for (std::size_t i = 0; i < records.size(); ++i) {
    check(reader.next(r), "rewritten log: record " + std::to_string(i + 1) + " missing");
    check(r.dir == records[i].dir && r.t_ns == records[i].t_ns && r.framed_bytes == records[i].framed_bytes &&
              cosim::fuzz::canonical(r.envelope) == records[i].canonical,
          "rewritten log: record " + std::to_string(i + 1) + " differs");
  }
  check(!reader.next(r), "rewritten log: more records than written");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cosim::fuzz::ScratchDir dir("cosimlog");
  const std::filesystem::path input = dir.path() / "input.cosimlog";
  const std::filesystem::path rewritten = dir.path() / "rewritten.cosimlog";
  cosim::fuzz::write_file(input, std::span(data, size));
  return cosim::fuzz::guarded([&] {
    std::vector<Recorded> records;
    std::uint32_t major = 0, minor = 0;
    bool opened = false;
    try {
      wire::CosimLogReader reader(input);
      opened = true;
      major = reader.proto_major();
      minor = reader.proto_minor();
      wire::CosimLogReader::Record r;  // reused, as replay does
      while (reader.next(r)) {
        check_record(r, records.size());
        records.push_back({r.dir, r.t_ns, r.framed_bytes, cosim::fuzz::canonical(r.envelope)});
      }
      check(!reader.next(r), "next() returned a record after the clean end");
    } catch (const std::runtime_error& e) {
      check(cosim::fuzz::starts_with(e.what(), input.string() + ": "),
            std::string("cosimlog error does not start with the path: ") + e.what());
    }
    // What was read before an error stays valid (replay plays it): rewrite it too.
    if (opened) check_rewrite(rewritten, major, minor, records);
  });
}
