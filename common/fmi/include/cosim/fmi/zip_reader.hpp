#pragma once
/// @file
/// A zip archive read with suspicion (an FMU is one, and it comes from anywhere): the central
/// directory checked before a byte is extracted — no absolute paths, drive letters, backslashes
/// or ".." components, no links, no encryption, no name twice (in any case), stored or deflated
/// entries only — and the sizes held to limits while inflating, whatever the archive declares.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace cosim::fmi {

/// How much an archive may hold; beyond it the archive is refused (a zip bomb, a mistake).
struct ZipLimits {
  std::uint64_t max_total_bytes = std::uint64_t{1} << 30;  ///< all entries uncompressed
  std::uint64_t max_entries = 10'000;
};

/// One entry of the central directory, checked.
struct ZipEntry {
  std::string name;           ///< as stored, '/'-separated, relative; a folder ends in '/'
  std::uint64_t size = 0;     ///< uncompressed [bytes]
  std::uint64_t packed = 0;   ///< compressed [bytes]
  std::uint32_t crc32 = 0;
  std::uint16_t method = 0;   ///< 0 stored, 8 deflated
  std::uint64_t local_header = 0;  ///< offset of its local header
  bool folder() const { return !name.empty() && name.back() == '/'; }
};

class ZipArchive {
 public:
  /// Reads and checks the central directory. Throws util::BadInputError "<file>: <what>" (or
  /// "<file>: <entry>: <what>") for a file that is no zip, a ZIP64 or multi-disk archive, an
  /// entry it refuses (see the file comment) or an archive over the limits.
  explicit ZipArchive(const std::filesystem::path& file, ZipLimits limits = {});

  const std::filesystem::path& file() const { return file_; }
  const std::vector<ZipEntry>& entries() const { return entries_; }
  /// The entry called `name`, or null.
  const ZipEntry* find(const std::string& name) const;

  /// One entry's bytes, inflated and checked against its size and CRC-32. Throws
  /// util::BadInputError naming the entry.
  std::string read(const ZipEntry& entry);

  /// Every entry into `folder` (which must exist; made by the caller, private), folders made,
  /// files created new (an existing one is an error: the folder was not fresh). Throws
  /// util::BadInputError for the archive, util::OutputError for the folder.
  void extract_all(const std::filesystem::path& folder);

 private:
  std::string read_at(std::uint64_t offset, std::size_t size, const std::string& what);
  template <class Sink>
  void inflate_entry(const ZipEntry& entry, Sink&& sink);

  std::filesystem::path file_;
  ZipLimits limits_;
  std::ifstream in_;
  std::uint64_t file_size_ = 0;
  std::vector<ZipEntry> entries_;
};

}  // namespace cosim::fmi
