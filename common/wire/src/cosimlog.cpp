#include <cosim/wire/cosimlog.hpp>
#include <cosim/wire/framing.hpp>
#include <cosim/platform/output_file.hpp>
#include <cosim/platform/paths.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace cosim::wire {
namespace {

constexpr std::string_view kHeaderPrefix = "COSIMLOG 1 cosim.v1 ";
constexpr std::size_t kMaxHeaderLine = 64;  // [bytes] longer first lines are not ours
constexpr std::size_t kRecordPrefixBytes = 1 + 8;  // direction + t_ns

std::string errno_text(int err) { return std::system_category().message(err); }

void put_le64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

// Parses "<major>.<minor>" exactly.
bool parse_version(std::string_view s, std::uint32_t& major, std::uint32_t& minor) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  const auto whole = [](std::string_view part, std::uint32_t& out) {
    if (part.empty()) return false;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc{} && end == part.data() + part.size();
  };
  return whole(s.substr(0, dot), major) && whole(s.substr(dot + 1), minor);
}

// Printable excerpt of a bad header line, for the error message.
std::string excerpt(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

void CosimLogReader::FileCloser::operator()(std::FILE* f) const noexcept { std::fclose(f); }

CosimLogWriter::CosimLogWriter(const std::filesystem::path& path, std::uint32_t proto_major,
                               std::uint32_t proto_minor)
    : path_(platform::utf8(path)), file_(path, 64 * 1024) {  // a record per message: few, large writes
  const std::string header = std::string(kHeaderPrefix) + std::to_string(proto_major) + "." +
                             std::to_string(proto_minor) + "\n";
  file_.append(header);
  file_.flush();  // the header at once: a session that fails early still leaves a readable log
}

void CosimLogWriter::append(Direction dir, std::int64_t t_ns, std::span<const std::byte> framed_bytes) {
  // The reader finds record boundaries through the frame header: it must be a whole frame.
  std::uint32_t payload_bytes = 0;
  if (framed_bytes.size() < kHeaderBytes ||
      parse_header(framed_bytes.first<kHeaderBytes>(), std::numeric_limits<std::uint32_t>::max(),
                   payload_bytes) ||
      framed_bytes.size() != kHeaderBytes + payload_bytes) {
    throw std::invalid_argument(path_ + ": append: bytes are not one whole CSIM frame");
  }
  if (dir != Direction::to_visual && dir != Direction::to_dynamics) {
    throw std::invalid_argument(path_ + ": append: invalid direction");
  }
  unsigned char prefix[kRecordPrefixBytes];
  prefix[0] = static_cast<unsigned char>(dir);
  put_le64(prefix + 1, static_cast<std::uint64_t>(t_ns));
  // A record per message must not mean a write(2) per message: RecordFile buffers whole records.
  record_.assign(reinterpret_cast<const char*>(prefix), sizeof prefix);
  record_.append(reinterpret_cast<const char*>(framed_bytes.data()), framed_bytes.size());
  file_.append(record_);
}

CosimLogReader::CosimLogReader(const std::filesystem::path& path)
    : path_(platform::utf8(path)), file_(platform::open_file(path, "rb")) {
  if (!file_) throw std::runtime_error(path_ + ": cannot open (" + errno_text(errno) + ")");
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw std::runtime_error(path_ + ": cannot stat (" + ec.message() + ")");
  if (!std::filesystem::is_regular_file(status)) throw std::runtime_error(path_ + ": not a cosimlog (not a regular file)");
  file_bytes_ = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error(path_ + ": cannot stat (" + ec.message() + ")");

  // Header line: read at most kMaxHeaderLine bytes up to '\n'.
  std::string line;
  for (int c; line.size() < kMaxHeaderLine && (c = std::fgetc(file_.get())) != EOF;) {
    if (c == '\n') {
      offset_ = line.size() + 1;
      break;
    }
    line += static_cast<char>(c);
  }
  const auto not_ours = [&](const std::string& why) {
    throw std::runtime_error(path_ + ": not a cosimlog (" + why + ")");
  };
  const std::string expected = "expected a first line 'COSIMLOG 1 cosim.v1 <major>.<minor>'";
  if (offset_ == 0) {
    if (line.empty()) not_ours("empty file; " + expected);
    not_ours("no header line; " + expected + ", found '" + excerpt(line) + "'");
  }
  if (line.rfind("COSIMLOG ", 0) == 0 && line.rfind(kHeaderPrefix, 0) != 0) {
    not_ours("unsupported format or schema in '" + excerpt(line) + "'; this build reads 'COSIMLOG 1 cosim.v1'");
  }
  if (line.rfind(kHeaderPrefix, 0) != 0 ||
      !parse_version(std::string_view(line).substr(kHeaderPrefix.size()), proto_major_, proto_minor_)) {
    not_ours(expected + ", found '" + excerpt(line) + "'");
  }
}

CosimLogReader::~CosimLogReader() = default;

void CosimLogReader::fail_record(std::uint64_t offset, const std::string& reason) const {
  throw std::runtime_error(path_ + ": record " + std::to_string(record_index_ + 1) +
                           " at byte offset " + std::to_string(offset) + ": " + reason);
}

bool CosimLogReader::next(Record& record) {
  const std::uint64_t start = offset_;
  unsigned char prefix[kRecordPrefixBytes];
  const std::size_t got = std::fread(prefix, 1, sizeof prefix, file_.get());
  if (got == 0 && std::feof(file_.get())) return false;  // clean end: between records
  if (got != sizeof prefix) {
    if (std::ferror(file_.get())) fail_record(start, "read error: " + errno_text(errno));
    fail_record(start, "truncated (file ends inside the record prefix)");
  }
  if (prefix[0] != static_cast<unsigned char>(Direction::to_visual) &&
      prefix[0] != static_cast<unsigned char>(Direction::to_dynamics)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", prefix[0]);
    fail_record(start, std::string("bad direction byte ") + hex + " (expected 0x01 or 0x02)");
  }

  std::byte header[kHeaderBytes];
  if (std::fread(header, 1, sizeof header, file_.get()) != sizeof header) {
    fail_record(start, "truncated (file ends inside the frame header)");
  }
  std::uint32_t payload_bytes = 0;
  if (auto ec = parse_header(header, std::numeric_limits<std::uint32_t>::max(), payload_bytes)) {
    fail_record(start, ec.message());
  }
  // Check the claimed length against the file before allocating it.
  const std::uint64_t payload_at = start + kRecordPrefixBytes + kHeaderBytes;
  if (payload_at + payload_bytes > file_bytes_) {
    fail_record(start, "truncated (frame claims " + std::to_string(payload_bytes) + " payload bytes, file has " +
                           std::to_string(file_bytes_ > payload_at ? file_bytes_ - payload_at : 0) +
                           " left)");
  }
  record.framed_bytes.resize(kHeaderBytes + payload_bytes);
  std::memcpy(record.framed_bytes.data(), header, kHeaderBytes);
  if (std::fread(record.framed_bytes.data() + kHeaderBytes, 1, payload_bytes, file_.get()) != payload_bytes) {
    fail_record(start, "truncated (file ends inside the payload)");
  }
  if (auto ec = decode_payload(std::span(record.framed_bytes).subspan(kHeaderBytes), record.envelope)) {
    fail_record(start, ec.message());
  }
  record.dir = static_cast<Direction>(prefix[0]);
  record.t_ns = static_cast<std::int64_t>(get_le64(prefix + 1));
  offset_ = payload_at + payload_bytes;
  ++record_index_;
  return true;
}

std::uint32_t CosimLogReader::proto_major() const { return proto_major_; }
std::uint32_t CosimLogReader::proto_minor() const { return proto_minor_; }

}  // namespace cosim::wire
