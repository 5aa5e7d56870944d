#pragma once
/// \file
/// Output files that hold whole records only, whatever happens: the writers of dynamics.csv,
/// probes.csv and the .cosimlog recordings go through it.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace cosim::platform {
class OutputFile;
}

namespace cosim::util {

/// An append-only file written in whole records: records are buffered and written together,
/// and a write that fails (full disk, file size limit) is cut back to the last whole record
/// before util::OutputError is thrown, so the file always parses. A process killed between
/// two writes leaves whole records too; a kill in the middle of one large write can at worst
/// tear the last record, which readers of our tables tolerate.
class RecordFile {
 public:
  /// Creates (truncates) `path`; records are written once `buffer_bytes` are pending. Throws
  /// util::OutputError naming it.
  explicit RecordFile(const std::filesystem::path& path, std::size_t buffer_bytes = 8 * 1024);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  /// Appends one whole record (buffered; written once the buffer is full). Throws
  /// util::OutputError when a write fails; the file then ends at the last whole record.
  void append(std::string_view record);
  /// Writes every buffered record. Throws util::OutputError as append().
  void flush();
  const std::filesystem::path& path() const { return path_; }
  /// Bytes on disk, all of them whole records.
  std::uint64_t committed_bytes() const { return committed_; }

 private:
  std::filesystem::path path_;
  std::unique_ptr<platform::OutputFile> file_;
  std::size_t buffer_bytes_;
  std::string pending_;
  std::uint64_t committed_ = 0;
  bool failed_ = false;
};

/// A file rewritten whole at the end of a run (run.json) whose space is taken up front:
/// reserve() writes `bytes` of blanks, so the final replace() needs no new disk blocks as long
/// as its text fits (JSON allows the trailing blanks it then truncates away).
class ReservedFile {
 public:
  /// Creates `path` holding `text` padded with blanks to at least `reserve_bytes`. Throws
  /// util::OutputError naming the path.
  ReservedFile(const std::filesystem::path& path, std::string_view text, std::size_t reserve_bytes);
  /// Replaces the content with `text` (in place when it fits the reservation). Throws
  /// util::OutputError naming the path.
  void replace(std::string_view text);

 private:
  std::filesystem::path path_;
  std::size_t reserved_;
};

}  // namespace cosim::util
