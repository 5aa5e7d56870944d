#include "cosim/util/record_file.hpp"

#include <algorithm>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::util {

namespace {

using platform::OutputFile;

std::unique_ptr<OutputFile> open_for_writing(const std::filesystem::path& path, OutputFile::Open how) {
  auto file = std::make_unique<OutputFile>(path, how);
  if (!file->ok()) {
    throw OutputError(platform::utf8(path) + ": cannot " +
                      (how == OutputFile::Open::existing ? "open for writing" : "create") + ": " +
                      platform::error_text(file->error()));
  }
  return file;
}

[[noreturn]] void fail_write(const std::filesystem::path& path, std::error_code error, std::string_view after = {}) {
  throw OutputError(platform::utf8(path) + ": cannot write: " + platform::error_text(error) + std::string(after));
}

}  // namespace

RecordFile::RecordFile(const std::filesystem::path& path, std::size_t buffer_bytes)
    : path_(path), file_(open_for_writing(path, OutputFile::Open::create_or_truncate)), buffer_bytes_(buffer_bytes) {
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
}

void RecordFile::append(std::string_view record) {
  if (pending_.size() + record.size() > buffer_bytes_ && !pending_.empty()) flush();
  pending_.append(record);
}

void RecordFile::flush() {
  if (pending_.empty() || failed_) return;
  if (const auto error = file_->write_at(pending_, committed_)) {
    failed_ = true;
    // Cut back to whole records: a torn record would make the file unreadable.
    const bool cut = !file_->truncate(committed_);
    fail_write(path_, error, cut ? " (the file ends at its last whole record)" : "");
  }
  committed_ += pending_.size();
  pending_.clear();
}

ReservedFile::ReservedFile(const std::filesystem::path& path, std::string_view text, std::size_t reserve_bytes)
    : path_(path), reserved_(std::max(reserve_bytes, text.size())) {
  const auto file = open_for_writing(path, OutputFile::Open::create_or_truncate);
  std::string padded(text);
  padded.resize(reserved_, ' ');
  if (!padded.empty() && padded.back() == ' ') padded.back() = '\n';
  if (const auto error = file->write_at(padded, 0)) fail_write(path_, error);
}

void ReservedFile::replace(std::string_view text) {
  const auto file = open_for_writing(path_, OutputFile::Open::existing);
  auto error = file->write_at(text, 0);
  if (!error) error = file->truncate(text.size());
  if (error) fail_write(path_, error);
}

}  // namespace cosim::util
