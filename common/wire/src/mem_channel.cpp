#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/mem_channel.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

namespace cosim::wire {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kStopPollSlice{100};

// Deadline that does not overflow for huge timeouts.
Clock::time_point deadline_after(milliseconds timeout) {
  const auto now = Clock::now();
  if (timeout <= milliseconds::zero()) return now;
  if (timeout >= std::chrono::hours(24 * 365)) return Clock::time_point::max();
  return now + timeout;
}

// Bytes travelling one way. The vector keeps its capacity: no allocation once warm.
struct Pipe {
  std::vector<std::byte> bytes;
  std::size_t head = 0;          // first unread byte
  bool writer_closed = false;
  bool reader_closed = false;

  std::size_t available() const { return bytes.size() - head; }
};

struct Shared {
  Shared() {
    // Room for many frames: growth is rare, so is allocation in write_all().
    for (auto& pipe : pipes) pipe.bytes.reserve(64 * 1024);
  }
  std::mutex mutex;
  std::condition_variable changed;
  Pipe pipes[2];  // pipes[i]: written by end i, read by end 1 - i
};

class MemChannel final : public Channel {
 public:
  MemChannel(std::shared_ptr<Shared> shared, int end, FaultPlan plan)
      : shared_(std::move(shared)), end_(end), plan_(plan) {}
  ~MemChannel() override { close(); }

  std::error_code write_all(std::span<const std::byte> bytes, milliseconds) override {
    std::unique_lock lock(shared_->mutex);
    const int call = ++writes_;
    Pipe& out = shared_->pipes[end_];
    if (out.writer_closed) return Errc::io_error;  // this end was closed
    if (out.reader_closed) return Errc::peer_closed;
    if (call == plan_.fail_on_write) return Errc::injected_fault;
    const bool truncate = call == plan_.truncate_on_write;
    const std::size_t n = truncate ? bytes.size() / 2 : bytes.size();
    const std::size_t at = out.bytes.size();
    out.bytes.insert(out.bytes.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    if (call == plan_.corrupt_on_write && n > 0) out.bytes[at] = ~out.bytes[at];
    if (truncate) close_locked();
    shared_->changed.notify_all();
    return truncate ? make_error_code(Errc::injected_fault) : std::error_code{};
  }

  std::error_code read_exact(std::span<std::byte> out, milliseconds timeout) override {
    std::unique_lock lock(shared_->mutex);
    const int call = ++reads_;
    Pipe& in = shared_->pipes[1 - end_];
    if (in.reader_closed) return Errc::io_error;  // this end was closed
    if (call == plan_.fail_on_read) return Errc::injected_fault;
    const auto deadline = deadline_after(timeout);
    // All-or-nothing: bytes are taken only once all of them are there.
    while (in.available() < out.size() && !in.writer_closed) {
      if (stop_requested()) return Errc::interrupted;
      const auto now = Clock::now();
      if (now >= deadline) return Errc::timeout;
      const auto slice_end = deadline - now > kStopPollSlice ? now + kStopPollSlice : deadline;
      shared_->changed.wait_until(lock, slice_end);
    }
    if (in.available() < out.size()) {
      in.head = in.bytes.size();  // peer closed mid-read: what was left is gone
      compact(in);
      return Errc::peer_closed;
    }
    std::memcpy(out.data(), in.bytes.data() + in.head, out.size());
    in.head += out.size();
    compact(in);
    return {};
  }

  bool readable_now() override {
    std::lock_guard lock(shared_->mutex);
    const Pipe& in = shared_->pipes[1 - end_];
    return in.available() > 0 || in.writer_closed || in.reader_closed;
  }

  void close() noexcept override {
    std::lock_guard lock(shared_->mutex);
    close_locked();
    shared_->changed.notify_all();
  }

  std::string describe() const override { return "mem:"; }

 private:
  void close_locked() noexcept {
    shared_->pipes[end_].writer_closed = true;
    shared_->pipes[1 - end_].reader_closed = true;
  }

  static void compact(Pipe& pipe) {
    if (pipe.head == pipe.bytes.size()) {
      pipe.bytes.clear();
      pipe.head = 0;
    } else if (pipe.head > 65536 && pipe.head * 2 > pipe.bytes.size()) {
      // A reader that never catches up fully still gets its memory back.
      pipe.bytes.erase(pipe.bytes.begin(), pipe.bytes.begin() + static_cast<std::ptrdiff_t>(pipe.head));
      pipe.head = 0;
    }
  }

  std::shared_ptr<Shared> shared_;
  int end_;
  FaultPlan plan_;
  int writes_ = 0;  // write_all calls so far (guarded by shared_->mutex)
  int reads_ = 0;   // read_exact calls so far (guarded by shared_->mutex)
};

}  // namespace

std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> make_mem_channel_pair(
    FaultPlan a_plan, FaultPlan b_plan) {
  auto shared = std::make_shared<Shared>();
  return {std::make_unique<MemChannel>(shared, 0, a_plan),
          std::make_unique<MemChannel>(shared, 1, b_plan)};
}

}  // namespace cosim::wire
