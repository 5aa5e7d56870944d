#include "path_registry.hpp"

#include <cosim/wire/interrupt.hpp>

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace cosim::wire {
namespace {

constexpr int kSlots = 32;
constexpr std::size_t kPathBytes = 4096;

// A slot's path is written before `state` is published (release) and read by the signal
// handler only when `state` says so (acquire): no lock needed on the handler side.
enum : int { kFree = 0, kFile = 1, kDirectory = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes];
};
static_assert(std::atomic<int>::is_always_lock_free);

Slot g_slots[kSlots];
std::mutex g_register_mutex;  // serialises register/unregister (never taken by the handler)

}  // namespace

namespace detail {

int register_path(const char* path, bool is_directory) noexcept {
  const std::size_t n = std::strlen(path);
  if (n >= kPathBytes) return -1;
  std::lock_guard lock(g_register_mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].state.load(std::memory_order_relaxed) != kFree) continue;
    std::memcpy(g_slots[i].path, path, n + 1);
    g_slots[i].state.store(is_directory ? kDirectory : kFile, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_path(int slot) noexcept {
  if (slot < 0 || slot >= kSlots) return;
  std::lock_guard lock(g_register_mutex);
  g_slots[slot].state.store(kFree, std::memory_order_release);
}

}  // namespace detail

void unlink_registered_paths_from_signal_handler() noexcept {
  // Files first, so directories are empty when rmdir() runs.
  for (auto& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kFile) ::unlink(slot.path);
  }
  for (auto& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kDirectory) ::rmdir(slot.path);
  }
}

}  // namespace cosim::wire
