#include "deadline.hpp"
#include "mem_pipe.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/mem_channel.hpp>

#include <algorithm>
#include <cstring>
#include <optional>

namespace cosim::wire {
namespace detail {
namespace {

using std::chrono::milliseconds;

// Appends without growing the vector when the consumed prefix can make room instead.
void append(MemPipe& pipe, std::span<const std::byte> bytes) {
  if (pipe.head != 0 && pipe.bytes.size() + bytes.size() > pipe.bytes.capacity()) {
    pipe.bytes.erase(pipe.bytes.begin(), pipe.bytes.begin() + static_cast<std::ptrdiff_t>(pipe.head));
    pipe.head = 0;
  }
  pipe.bytes.insert(pipe.bytes.end(), bytes.begin(), bytes.end());
}

void consume(MemPipe& pipe, std::span<std::byte> out) {
  std::memcpy(out.data(), pipe.bytes.data() + pipe.head, out.size());
  pipe.head += out.size();
  if (pipe.head == pipe.bytes.size()) {
    pipe.bytes.clear();
    pipe.head = 0;
  }
}

class MemChannel final : public Channel {
 public:
  MemChannel(std::shared_ptr<MemShared> shared, int end, std::string description)
      : shared_(std::move(shared)), end_(end), description_(std::move(description)) {}
  ~MemChannel() override { close(); }

  std::error_code write_all(std::span<const std::byte> bytes, milliseconds timeout) override {
    MemShared& s = *shared_;
    std::unique_lock lock(s.mutex);
    MemPipe& out = s.pipes[end_];
    std::optional<Clock::time_point> deadline;  // only computed when we have to wait
    std::size_t done = 0;
    for (;;) {
      if (out.writer_closed) return Errc::io_error;  // this end was closed
      if (out.reader_closed) return Errc::peer_closed;
      const std::size_t left = bytes.size() - done;
      const std::size_t room = s.capacity == 0 ? left : s.capacity - std::min(s.capacity, out.available());
      if (const std::size_t n = std::min(left, room); n != 0) {
        append(out, bytes.subspan(done, n));
        done += n;
        s.changed.notify_all();
      }
      if (done == bytes.size()) return {};
      // Full (bounded pipes only): wait for the reader, like a blocked pipe write.
      if (stop_requested()) return Errc::interrupted;
      if (!deadline) deadline = deadline_after(timeout);
      if (Clock::now() >= *deadline) return Errc::timeout;
      s.changed.wait_until(lock, slice_end(*deadline));
    }
  }

  std::error_code read_exact(std::span<std::byte> out, milliseconds timeout) override {
    MemShared& s = *shared_;
    std::unique_lock lock(s.mutex);
    MemPipe& in = s.pipes[1 - end_];
    const auto deadline = deadline_after(timeout);
    std::size_t done = 0;
    for (;;) {
      if (in.reader_closed) return Errc::io_error;  // this end was closed
      const std::size_t want = out.size() - done;
      // All-or-nothing while the request fits the pipe; a longer one is taken piecewise
      // whenever the pipe is full, else its writer could never finish.
      const bool full = s.capacity != 0 && in.available() >= s.capacity;
      if (in.available() >= want || full) {
        const std::size_t n = std::min(want, in.available());
        consume(in, out.subspan(done, n));
        done += n;
        s.changed.notify_all();
        if (done == out.size()) return {};
        continue;
      }
      if (in.writer_closed) {
        in.bytes.clear();  // peer closed mid-read: what was left is gone
        in.head = 0;
        return Errc::peer_closed;
      }
      if (stop_requested()) return Errc::interrupted;
      if (Clock::now() >= deadline) return Errc::timeout;
      s.changed.wait_until(lock, slice_end(deadline));
    }
  }

  bool readable_now() override {
    std::lock_guard lock(shared_->mutex);
    const MemPipe& in = shared_->pipes[1 - end_];
    return in.available() > 0 || in.writer_closed || in.reader_closed;
  }

  void close() noexcept override {
    std::lock_guard lock(shared_->mutex);
    shared_->pipes[end_].writer_closed = true;
    shared_->pipes[1 - end_].reader_closed = true;
    shared_->changed.notify_all();
  }

  std::string describe() const override { return description_; }

 private:
  std::shared_ptr<MemShared> shared_;
  int end_;
  std::string description_;
};

}  // namespace

MemShared::MemShared(std::size_t capacity_bytes) : capacity(capacity_bytes) {
  // Unbounded: room for many frames, so growth (allocation in write_all) is rare.
  // Bounded: exactly the capacity, and append() never grows past it.
  for (auto& pipe : pipes) pipe.bytes.reserve(capacity_bytes == 0 ? 64 * 1024 : capacity_bytes);
}

std::unique_ptr<Channel> make_mem_end(std::shared_ptr<MemShared> shared, int end, std::string description) {
  return std::make_unique<MemChannel>(std::move(shared), end, std::move(description));
}

}  // namespace detail

std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> make_mem_channel_pair() {
  auto shared = std::make_shared<detail::MemShared>(/*capacity_bytes=*/0);
  return {detail::make_mem_end(shared, 0, "mem:"), detail::make_mem_end(shared, 1, "mem:")};
}

}  // namespace cosim::wire
