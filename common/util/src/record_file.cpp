#include "cosim/util/record_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cosim/util/errors.hpp"

namespace cosim::util {

namespace {

std::string why(int error) {
  return std::strerror(error);
}

/// Writes all of `bytes` at `offset` (pwrite: no shared file position). Returns 0 or errno.
int write_all_at(int fd, std::string_view bytes, std::uint64_t offset) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return 0;
}

int open_for_writing(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(path.string() + ": cannot create: " + why(errno));
  return fd;
}

}  // namespace

RecordFile::RecordFile(const std::filesystem::path& path, std::size_t buffer_bytes)
    : path_(path), fd_(open_for_writing(path)), buffer_bytes_(buffer_bytes) {
  pending_.reserve(buffer_bytes_);
}

RecordFile::~RecordFile() {
  if (!failed_) {
    try {
      flush();
    } catch (const OutputError&) {
      // Destructors do not throw; whoever cares has called flush() and seen the error.
    }
  }
  ::close(fd_);
}

void RecordFile::append(std::string_view record) {
  if (pending_.size() + record.size() > buffer_bytes_ && !pending_.empty()) flush();
  pending_.append(record);
}

void RecordFile::flush() {
  if (pending_.empty() || failed_) return;
  if (const int error = write_all_at(fd_, pending_, committed_); error != 0) {
    failed_ = true;
    // Cut back to whole records: a torn record would make the file unreadable.
    const bool cut = ::ftruncate(fd_, static_cast<off_t>(committed_)) == 0;
    throw OutputError(path_.string() + ": cannot write: " + why(error) +
                      (cut ? " (the file ends at its last whole record)" : ""));
  }
  committed_ += pending_.size();
  pending_.clear();
}

ReservedFile::ReservedFile(const std::filesystem::path& path, std::string_view text, std::size_t reserve_bytes)
    : path_(path), reserved_(std::max(reserve_bytes, text.size())) {
  const int fd = open_for_writing(path);
  std::string padded(text);
  padded.resize(reserved_, ' ');
  if (!padded.empty() && padded.back() == ' ') padded.back() = '\n';
  const int error = write_all_at(fd, padded, 0);
  ::close(fd);
  if (error != 0) throw OutputError(path_.string() + ": cannot write: " + why(error));
}

void ReservedFile::replace(std::string_view text) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw OutputError(path_.string() + ": cannot open for writing: " + why(errno));
  int error = write_all_at(fd, text, 0);
  if (error == 0 && ::ftruncate(fd, static_cast<off_t>(text.size())) != 0) error = errno;
  ::close(fd);
  if (error != 0) throw OutputError(path_.string() + ": cannot write: " + why(error));
}

}  // namespace cosim::util
