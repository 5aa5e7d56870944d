// A zip archive read with suspicion (zip_reader.hpp). The format: PKWARE's APPNOTE.TXT (end of
// central directory, central directory headers, local headers); deflate by zlib.
#include "cosim/fmi/zip_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <set>
#include <system_error>

#include <zlib.h>

#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50, kCentralSignature = 0x02014b50, kLocalSignature = 0x04034b50;
constexpr std::size_t kEndBytes = 22, kCentralBytes = 46, kLocalBytes = 30;
constexpr std::size_t kChunkBytes = 1 << 16;
constexpr std::uint16_t kFlagEncrypted = 1, kFlagUtf8 = 1 << 11;

std::uint16_t u16(const char* p) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(p[0]) | (static_cast<unsigned char>(p[1]) << 8));
}
std::uint32_t u32(const char* p) { return u16(p) | (static_cast<std::uint32_t>(u16(p + 2)) << 16); }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Why an entry name could not be extracted where it says, or "" when it can.
std::string bad_name(const std::string& name, bool utf8) {
  if (name.empty()) return "an empty name";
  if (name.size() > 4096) return "a name longer than 4096 bytes";
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return "a control character in the name";
    if (c == '\\') return "a backslash in the name (zip names are '/'-separated; it could climb out on Windows)";
    if (c == ':') return "a ':' in the name (a drive letter or a Windows stream)";
    if (u >= 0x80 && !utf8) return "a name in a legacy code page (not flagged UTF-8)";
  }
  if (name.front() == '/') return "an absolute path";
  std::size_t start = 0;
  while (start < name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part.empty()) return "an empty path component ('//')";
    if (part == "." || part == "..") return "a '" + part + "' component (it could climb out of the folder)";
    start = end + 1;
  }
  return {};
}

}  // namespace

ZipArchive::ZipArchive(const fs::path& file, ZipLimits limits) : file_(file), limits_(limits) {
  const std::string where = platform::utf8(file);
  const auto fail = [&](const std::string& what) { throw util::BadInputError(where + ": " + what); };
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) fail("no such file (or not a regular file)");
  file_size_ = fs::file_size(file, ec);
  if (ec) fail("cannot read: " + ec.message());
  in_.open(file, std::ios::binary);
  if (!in_) fail("cannot open");
  if (file_size_ < kEndBytes) fail("not a zip archive (" + std::to_string(file_size_) + " bytes)");

  // The end record is the last 22 bytes plus a comment of up to 65535: found from the end, the
  // one whose comment length reaches exactly to the end of the file.
  const std::size_t tail_size = static_cast<std::size_t>(std::min<std::uint64_t>(file_size_, kEndBytes + 0xffff));
  const std::string tail = read_at(file_size_ - tail_size, tail_size, "its end");
  std::size_t end_at = std::string::npos;
  for (std::size_t i = tail_size - kEndBytes + 1; i-- > 0;) {
    if (u32(&tail[i]) == kEndSignature && i + kEndBytes + u16(&tail[i + 20]) == tail_size) {
      end_at = i;
      break;
    }
  }
  if (end_at == std::string::npos) fail("not a zip archive (no end of central directory)");
  const char* end = &tail[end_at];
  const std::uint64_t end_offset = file_size_ - tail_size + end_at;
  const std::uint16_t disk = u16(end + 4), cd_disk = u16(end + 6), here = u16(end + 8), count = u16(end + 10);
  const std::uint32_t cd_size = u32(end + 12), cd_offset = u32(end + 16);
  if (count == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) fail("a ZIP64 archive (not supported: an FMU is far smaller)");
  if (disk != 0 || cd_disk != 0 || here != count) fail("a multi-disk archive (not supported)");
  if (count > limits_.max_entries) fail(std::to_string(count) + " entries; at most " + std::to_string(limits_.max_entries));
  if (std::uint64_t{cd_offset} + cd_size > end_offset) fail("the central directory lies outside the file");

  const std::string cd = read_at(cd_offset, cd_size, "its central directory");
  std::set<std::string> names, files, folders;  // lower case: one name in any case on any system
  std::uint64_t total = 0;
  std::size_t at = 0;
  for (std::uint16_t n = 0; n < count; ++n) {
    if (at + kCentralBytes > cd.size() || u32(&cd[at]) != kCentralSignature) {
      fail("central directory entry " + std::to_string(n) + " is cut short or malformed");
    }
    const char* h = &cd[at];
    const std::uint16_t made_by = u16(h + 4), flags = u16(h + 8), method = u16(h + 10);
    const std::uint32_t crc = u32(h + 16), packed = u32(h + 20), size = u32(h + 24);
    const std::uint16_t name_len = u16(h + 28), extra_len = u16(h + 30), comment_len = u16(h + 32);
    const std::uint32_t external = u32(h + 38), local = u32(h + 42);
    if (at + kCentralBytes + name_len + extra_len + comment_len > cd.size()) {
      fail("central directory entry " + std::to_string(n) + " is cut short");
    }
    ZipEntry e;
    e.name.assign(h + kCentralBytes, name_len);
    at += kCentralBytes + name_len + extra_len + comment_len;
    const auto refuse = [&](const std::string& what) { fail(e.name + ": " + what); };
    if (const std::string why = bad_name(e.name, (flags & kFlagUtf8) != 0); !why.empty()) refuse(why);
    if (flags & kFlagEncrypted) refuse("encrypted (not supported)");
    if (method != 0 && method != 8) refuse("compression method " + std::to_string(method) + " (only stored and deflated)");
    if (packed == 0xffffffff || size == 0xffffffff || local == 0xffffffff) refuse("ZIP64 sizes (not supported)");
    constexpr std::uint32_t kUnixTypeMask = 0170000, kUnixLink = 0120000;
    if ((made_by >> 8) == 3 && ((external >> 16) & kUnixTypeMask) == kUnixLink) refuse("a symbolic link (not extracted)");
    if (local >= cd_offset) refuse("its data lies outside the archive's data");
    e.size = size;
    e.packed = packed;
    e.crc32 = crc;
    e.method = method;
    e.local_header = local;
    if (e.folder() && size != 0) refuse("a folder with data");
    if (method == 0 && packed != size) refuse("stored, but its sizes differ");
    total += size;
    if (total > limits_.max_total_bytes) {
      fail("more than " + std::to_string(limits_.max_total_bytes) + " bytes uncompressed (at " + e.name + ")");
    }
    const std::string key = lower(e.folder() ? e.name.substr(0, e.name.size() - 1) : e.name);
    if (!names.insert(key).second) refuse("a second entry of this name (names are compared in any case)");
    (e.folder() ? folders : files).insert(key);
    entries_.push_back(std::move(e));
  }
  // A file cannot also be a folder on the way to another entry.
  for (const std::string& key : names) {
    for (std::size_t slash = key.find('/'); slash != std::string::npos; slash = key.find('/', slash + 1)) {
      if (files.count(key.substr(0, slash))) fail(key.substr(0, slash) + ": a file and a folder on the way to " + key);
    }
  }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  for (const ZipEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string ZipArchive::read_at(std::uint64_t offset, std::size_t size, const std::string& what) {
  if (offset > file_size_ || size > file_size_ - offset) {
    throw util::BadInputError(platform::utf8(file_) + ": " + what + " lies outside the file");
  }
  std::string bytes(size, '\0');
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(offset));
  in_.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::size_t>(in_.gcount()) != size) {
    throw util::BadInputError(platform::utf8(file_) + ": cannot read " + what);
  }
  return bytes;
}

template <class Sink>
void ZipArchive::inflate_entry(const ZipEntry& e, Sink&& sink) {
  const auto fail = [&](const std::string& what) {
    throw util::BadInputError(platform::utf8(file_) + ": " + e.name + ": " + what);
  };
  const std::string local = read_at(e.local_header, kLocalBytes, e.name + "'s local header");
  if (u32(local.data()) != kLocalSignature) fail("no local header where the central directory says");
  const std::uint64_t data = e.local_header + kLocalBytes + u16(&local[26]) + u16(&local[28]);
  if (data > file_size_ || e.packed > file_size_ - data) fail("its data lies outside the file");

  std::uint64_t read_bytes = 0, produced = 0;
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto emit = [&](const char* bytes, std::size_t n) {
    produced += n;
    if (produced > e.size) fail("inflates past its declared " + std::to_string(e.size) + " bytes");
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes), static_cast<uInt>(n));
    sink(bytes, n);
  };
  if (e.method == 0) {
    while (read_bytes < e.packed) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, e.packed - read_bytes));
      const std::string chunk = read_at(data + read_bytes, n, e.name);
      read_bytes += n;
      emit(chunk.data(), n);
    }
  } else {
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) fail("zlib cannot start inflating");  // raw deflate
    std::array<char, kChunkBytes> out{};
    int rc = Z_OK;
    std::string chunk;
    try {
      while (rc != Z_STREAM_END) {
        if (zs.avail_in == 0) {
          if (read_bytes == e.packed) fail("its deflated data ends before the stream does");
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, e.packed - read_bytes));
          chunk = read_at(data + read_bytes, n, e.name);
          read_bytes += n;
          zs.next_in = reinterpret_cast<Bytef*>(chunk.data());
          zs.avail_in = static_cast<uInt>(n);
        }
        zs.next_out = reinterpret_cast<Bytef*>(out.data());
        zs.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) fail(std::string("bad deflated data (zlib: ") + (zs.msg ? zs.msg : "error") + ")");
        emit(out.data(), out.size() - zs.avail_out);
      }
    } catch (...) {
      inflateEnd(&zs);
      throw;
    }
    inflateEnd(&zs);
  }
  if (produced != e.size) fail(std::to_string(produced) + " bytes where its header says " + std::to_string(e.size));
  if (crc != e.crc32) fail("its CRC-32 does not match (the archive is damaged)");
}

std::string ZipArchive::read(const ZipEntry& entry) {
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(entry.size));
  inflate_entry(entry, [&](const char* p, std::size_t n) { bytes.append(p, n); });
  return bytes;
}

void ZipArchive::extract_all(const fs::path& folder) {
  for (const ZipEntry& e : entries_) {
    const fs::path target = folder / platform::path_from_utf8(e.name);
    std::error_code ec;
    fs::create_directories(e.folder() ? target : target.parent_path(), ec);
    if (ec) throw util::OutputError(platform::utf8(target) + ": cannot make the folder: " + ec.message());
    if (e.folder()) continue;
    if (fs::exists(fs::symlink_status(target, ec))) {
      throw util::OutputError(platform::utf8(target) + ": already there (extracting into a folder that is not fresh)");
    }
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!out) throw util::OutputError(platform::utf8(target) + ": cannot create");
    inflate_entry(e, [&](const char* p, std::size_t n) { out.write(p, static_cast<std::streamsize>(n)); });
    out.close();
    if (!out) throw util::OutputError(platform::utf8(target) + ": cannot write");
  }
}

}  // namespace cosim::fmi
