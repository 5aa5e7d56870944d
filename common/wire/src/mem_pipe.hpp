#pragma once
// The shared state behind two in-process channel ends (private to cosim::wire).

#include <cosim/wire/channel.hpp>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cosim::wire::detail {

/// Bytes travelling one way. The vector keeps its capacity: no allocation once warm.
struct MemPipe {
  std::vector<std::byte> bytes;
  std::size_t head = 0;  // first unread byte
  bool writer_closed = false;
  bool reader_closed = false;

  std::size_t available() const { return bytes.size() - head; }
};

/// Both directions of one channel and what guards them.
struct MemShared {
  /// capacity_bytes: most bytes one direction holds; 0 = unbounded.
  explicit MemShared(std::size_t capacity_bytes);

  /// True once both ends have been closed (or destroyed).
  bool both_closed() const { return pipes[0].writer_closed && pipes[1].writer_closed; }

  const std::size_t capacity;  // [bytes] per direction, 0 = unbounded
  std::mutex mutex;
  std::condition_variable changed;
  MemPipe pipes[2];  // pipes[i]: written by end i, read by end 1 - i
};

/// End `end` (0 or 1) of `shared`; describe() returns `description`.
std::unique_ptr<Channel> make_mem_end(std::shared_ptr<MemShared> shared, int end,
                                      std::string description);

}  // namespace cosim::wire::detail
