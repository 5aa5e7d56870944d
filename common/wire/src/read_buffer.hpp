#pragma once
// The read side's buffer of the stream channels (FIFO, named pipe, TCP): one system call
// takes everything pending, later reads are served from here (private to cosim::wire).

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

namespace cosim::wire::detail {

class ReadBuffer {
 public:
  /// 64 KiB: one read takes any usual frame.
  static constexpr std::size_t kBytes = 64 * 1024;

  ReadBuffer() : bytes_(kBytes) {}

  /// Copies what is buffered into the front of `out`; returns how many bytes.
  std::size_t take(std::span<std::byte> out) noexcept {
    const std::size_t n = std::min(out.size(), end_ - pos_);
    if (n != 0) {
      std::memcpy(out.data(), bytes_.data() + pos_, n);
      pos_ += n;
    }
    return n;
  }

  bool empty() const noexcept { return pos_ == end_; }
  void clear() noexcept { pos_ = end_ = 0; }

  /// Where the next system call reads to, and how much fits.
  std::byte* data() noexcept { return bytes_.data(); }
  std::size_t capacity() const noexcept { return bytes_.size(); }
  /// After a read of `n` bytes into data().
  void filled(std::size_t n) noexcept {
    pos_ = 0;
    end_ = n;
  }

 private:
  std::vector<std::byte> bytes_;
  std::size_t pos_ = 0;  // [bytes] unread data is bytes_[pos_, end_)
  std::size_t end_ = 0;
};

}  // namespace cosim::wire::detail
