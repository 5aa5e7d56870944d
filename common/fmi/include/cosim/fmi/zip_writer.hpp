#pragma once
/// @file
/// A zip archive written in one pass (what `cosim-fmu export` packs an FMU into): deflated
/// entries with CRC-32, regular files only, UTF-8 names, a fixed timestamp so that the same
/// model gives the same bytes. No ZIP64: an entry or the archive past 4 GiB is refused.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace cosim::fmi {

class ZipWriter {
 public:
  /// Creates `file` (replacing one there). Throws util::OutputError naming it.
  explicit ZipWriter(const std::filesystem::path& file);
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// Adds `bytes` as the entry `name` ('/'-separated, relative, no "..", no name twice).
  /// Throws std::invalid_argument for a name the reader (ZipArchive) would refuse,
  /// util::OutputError when the file cannot be written.
  void add(const std::string& name, std::string_view bytes);
  /// Writes the central directory and closes the file. Throws util::OutputError.
  void finish();

 private:
  struct Written {
    std::string name;
    std::uint32_t crc32, packed, size, offset;
  };
  void write(std::string_view bytes);
  static void put_shared_fields(std::string& out, const Written& w);

  std::filesystem::path file_;
  std::ofstream out_;
  std::uint64_t offset_ = 0;
  std::vector<Written> written_;
  bool finished_ = false;
};

}  // namespace cosim::fmi
