// A zip archive written in one pass (zip_writer.hpp). The format: PKWARE's APPNOTE.TXT (local
// headers, central directory, end record), as zip_reader.cpp reads it; raw deflate by zlib.
#include "cosim/fmi/zip_writer.hpp"

#include <limits>
#include <set>
#include <stdexcept>

#include <zlib.h>

#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {

namespace {

constexpr std::uint32_t kEndSig = 0x06054b50, kCentralSig = 0x02014b50, kLocalSig = 0x04034b50;
constexpr std::uint16_t kVersion = 20;          // 2.0: deflate
constexpr std::uint16_t kUtf8Flag = 1 << 11;
constexpr std::uint16_t kDeflated = 8;
constexpr std::uint16_t kDosTime = 0, kDosDate = (1 << 5) | 1;  // 1980-01-01 00:00: reproducible bytes
constexpr std::uint32_t kRegularFile = 0100644u << 16;          // Unix mode in the external attributes
constexpr std::uint16_t kMadeByUnix = (3 << 8) | kVersion;
constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();

void put16(std::string& out, std::uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

std::string deflated(std::string_view bytes) {
  z_stream z{};
  // -15: raw deflate (no zlib header), as zip stores it.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  return out;
}

}  // namespace

ZipWriter::ZipWriter(const std::filesystem::path& file) : file_(file), out_(file, std::ios::binary | std::ios::trunc) {
  if (!out_) throw util::OutputError(platform::utf8(file) + ": cannot create");
}

// The fields a local header and a central directory entry share, in that order: version
// needed, flags, method, time, date, CRC-32, sizes, name length.
void ZipWriter::put_shared_fields(std::string& out, const Written& w) {
  put16(out, kVersion);
  put16(out, kUtf8Flag);
  put16(out, kDeflated);
  put16(out, kDosTime);
  put16(out, kDosDate);
  put32(out, w.crc32);
  put32(out, w.packed);
  put32(out, w.size);
  put16(out, static_cast<std::uint32_t>(w.name.size()));
}

void ZipWriter::write(std::string_view bytes) {
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out_) throw util::OutputError(platform::utf8(file_) + ": cannot write (disk full?)");
  offset_ += bytes.size();
}

void ZipWriter::add(const std::string& name, std::string_view bytes) {
  if (finished_) throw std::logic_error("ZipWriter::add after finish");
  const bool bad = name.empty() || name.front() == '/' || name.back() == '/' || name.find('\\') != std::string::npos ||
                   name.find("//") != std::string::npos || name == ".." || name.rfind("../", 0) == 0 ||
                   name.find("/../") != std::string::npos || name.size() > 4096;
  if (bad) throw std::invalid_argument("zip entry name '" + name + "': not a relative '/'-separated file name");
  for (const Written& w : written_) {
    if (w.name == name) throw std::invalid_argument("zip entry name '" + name + "': given twice");
  }
  if (bytes.size() > kMax32 || offset_ > kMax32) {
    throw util::OutputError(platform::utf8(file_) + ": " + name + ": past 4 GiB (no ZIP64)");
  }
  const std::string packed = deflated(bytes);
  const auto crc = static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
  const Written w{name, crc, static_cast<std::uint32_t>(packed.size()), static_cast<std::uint32_t>(bytes.size()),
                  static_cast<std::uint32_t>(offset_)};
  std::string header;
  put32(header, kLocalSig);
  put_shared_fields(header, w);
  put16(header, 0);  // no extra field
  header += name;
  write(header);
  write(packed);
  written_.push_back(w);
}

void ZipWriter::finish() {
  if (finished_) return;
  const std::uint64_t central_at = offset_;
  std::string central;
  for (const Written& w : written_) {
    put32(central, kCentralSig);
    put16(central, kMadeByUnix);
    put_shared_fields(central, w);
    put16(central, 0);  // extra
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, kRegularFile);
    put32(central, w.offset);
    central += w.name;
  }
  if (central_at + central.size() > kMax32 || written_.size() > 0xffff) {
    throw util::OutputError(platform::utf8(file_) + ": past 4 GiB or 65535 entries (no ZIP64)");
  }
  std::string end;
  put32(end, kEndSig);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<std::uint32_t>(written_.size()));
  put16(end, static_cast<std::uint32_t>(written_.size()));
  put32(end, static_cast<std::uint32_t>(central.size()));
  put32(end, static_cast<std::uint32_t>(central_at));
  put16(end, 0);  // no comment
  write(central);
  write(end);
  out_.close();
  if (!out_) throw util::OutputError(platform::utf8(file_) + ": cannot close (disk full?)");
  finished_ = true;
}

}  // namespace cosim::fmi
