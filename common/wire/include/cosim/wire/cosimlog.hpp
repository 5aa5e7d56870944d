#pragma once
/// \file
/// "frames.cosimlog": the exact envelopes exchanged during a run, replayable.
///
/// Format: header line "COSIMLOG 1 cosim.v1 <major>.<minor>\n" (format version 1, then the
/// protocol version of the writer), then records of
///   1 byte direction (0x01 dynamics->visual, 0x02 visual->dynamics),
///   8 bytes little-endian steady-clock time [ns],
///   the framed bytes exactly as on the wire ("CSIM" header + payload).

#include <cosim/v1/cosim.pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cosim/util/record_file.hpp"

namespace cosim::wire {

/// Direction of a recorded envelope.
enum class Direction : std::uint8_t {
  to_visual = 1,    ///< dynamics -> visual
  to_dynamics = 2,  ///< visual -> dynamics
};

/// Appends records through util::RecordFile: buffered, and whole records on disk whatever
/// happens (a failed write is cut back to the last whole record). The destructor flushes.
class CosimLogWriter {
 public:
  /// Creates (truncates) `path` and writes the header line.
  /// Throws util::OutputError naming the path if it cannot be written.
  CosimLogWriter(const std::filesystem::path& path, std::uint32_t proto_major,
                 std::uint32_t proto_minor);
  CosimLogWriter(const CosimLogWriter&) = delete;
  CosimLogWriter& operator=(const CosimLogWriter&) = delete;

  /// Appends one record.
  /// \param t_ns steady-clock time of the send/receive [ns].
  /// \param framed_bytes one whole frame (e.g. MessageStream::last_sent_bytes()); throws
  ///        std::invalid_argument if it is not (bad magic or length mismatch), and
  ///        util::OutputError naming the path on a write error.
  void append(Direction dir, std::int64_t t_ns, std::span<const std::byte> framed_bytes);

  /// Writes buffered records to the OS. Throws util::OutputError naming the path.
  void flush() { file_.flush(); }

 private:
  std::string path_;
  util::RecordFile file_;
  std::string record_;  // reused: prefix + frame, appended whole
};

/// Reads a cosimlog record by record.
class CosimLogReader {
 public:
  /// Opens `path` and checks its header line. Throws std::runtime_error
  /// "PATH: cannot open (...)" or "PATH: not a cosimlog (...)".
  explicit CosimLogReader(const std::filesystem::path& path);
  ~CosimLogReader();
  CosimLogReader(const CosimLogReader&) = delete;
  CosimLogReader& operator=(const CosimLogReader&) = delete;

  /// One recorded envelope.
  struct Record {
    Direction dir;
    std::int64_t t_ns;                  ///< steady-clock time [ns]
    cosim::v1::Envelope envelope;       ///< decoded payload
    std::vector<std::byte> framed_bytes;  ///< header + payload, as on the wire
  };

  /// Reads the next record into `record` (its buffers are reused).
  /// \return false at a clean end of file. Throws std::runtime_error
  ///         "PATH: record N at byte offset B: REASON" (N 1-based) on corruption or
  ///         truncation; a claimed length is checked against the file size before anything
  ///         is allocated.
  bool next(Record& record);

  /// Protocol version written in the header.
  std::uint32_t proto_major() const;
  std::uint32_t proto_minor() const;

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const noexcept;
  };
  [[noreturn]] void fail_record(std::uint64_t offset, const std::string& reason) const;

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::uint64_t file_bytes_ = 0;  // file size at open [bytes]
  std::uint64_t offset_ = 0;      // [bytes] from file start to the next record
  std::uint64_t record_index_ = 0;  // records read so far
  std::uint32_t proto_major_ = 0;
  std::uint32_t proto_minor_ = 0;
};

}  // namespace cosim::wire
