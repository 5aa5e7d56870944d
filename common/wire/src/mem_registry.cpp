// Named in-process channels: "mem:NAME" pairs up a listen and a connect by NAME.

#include "deadline.hpp"
#include "mem_pipe.hpp"

#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/mem_channel.hpp>

#include <condition_variable>
#include <map>
#include <mutex>

namespace cosim::wire {
namespace {

using detail::Clock;
using detail::MemShared;
using Kind = ChannelSetupError::Kind;

// One name: the pair's state (kept alive by its ends) and whether a visual end joined.
struct Entry {
  std::weak_ptr<MemShared> shared;
  bool joined = false;
};

// Lock order: Registry::mutex, then MemShared::mutex (ends never take the registry's).
struct Registry {
  std::mutex mutex;
  std::condition_variable changed;  // an entry was added or joined
  std::map<std::string, Entry, std::less<>> entries;

  // True while the pair under `entry` has an end that is not closed.
  static bool live(const Entry& entry) {
    const auto shared = entry.shared.lock();
    if (!shared) return false;
    std::lock_guard lock(shared->mutex);
    return !shared->both_closed();
  }

  void forget_dead_entries() {
    std::erase_if(entries, [](const auto& item) { return !live(item.second); });
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string spec(const std::string& name) { return "mem:" + name; }

[[noreturn]] void fail_wait(Kind kind, const std::string& name, std::chrono::milliseconds open_timeout,
                            const std::string& why) {
  if (kind == Kind::interrupted) {
    throw ChannelSetupError(kind, spec(name) + ": interrupted while waiting for a peer");
  }
  throw ChannelSetupError(kind, "no peer opened " + spec(name) + " within " +
                                    detail::seconds_text(open_timeout) + " (" + why + ")");
}

void check_name(const std::string& name) {
  if (name.empty()) throw ChannelSetupError(Kind::bad_input, "mem channel: empty name");
}

}  // namespace

std::unique_ptr<Channel> listen_mem_channel(const std::string& name, std::chrono::milliseconds open_timeout) {
  check_name(name);
  const auto deadline = detail::deadline_after(open_timeout);
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  r.forget_dead_entries();
  if (r.entries.contains(name)) {
    throw ChannelSetupError(Kind::bad_input, spec(name) + ": already in use by another dynamics side in this "
                                                          "process; use another name or close that channel first");
  }
  auto shared = std::make_shared<MemShared>(kMemPipeCapacityBytes);
  const auto it = r.entries.emplace(name, Entry{shared, false}).first;
  r.changed.notify_all();
  // The joined flag is checked first: a peer that joined in time wins over a stop or timeout.
  while (!it->second.joined) {
    if (stop_requested() || Clock::now() >= deadline) {
      r.entries.erase(it);
      fail_wait(stop_requested() ? Kind::interrupted : Kind::timeout, name, open_timeout,
                "is the visual side opening " + spec(name) + " in this process?");
    }
    r.changed.wait_until(lock, detail::slice_end(deadline));
  }
  return detail::make_mem_end(std::move(shared), 0, spec(name));
}

std::unique_ptr<Channel> connect_mem_channel(const std::string& name, std::chrono::milliseconds open_timeout) {
  check_name(name);
  const auto deadline = detail::deadline_after(open_timeout);
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  bool saw_joined = false;
  for (;;) {
    if (const auto it = r.entries.find(name); it != r.entries.end() && Registry::live(it->second)) {
      if (!it->second.joined) {
        it->second.joined = true;  // the listener holds `shared` until it sees this
        r.changed.notify_all();
        return detail::make_mem_end(it->second.shared.lock(), 1, spec(name));
      }
      saw_joined = true;
    }
    if (stop_requested() || Clock::now() >= deadline) {
      fail_wait(stop_requested() ? Kind::interrupted : Kind::timeout, name, open_timeout,
                saw_joined ? "its dynamics side is already paired with another visual side"
                           : "no dynamics side is listening on it in this process");
    }
    r.changed.wait_until(lock, detail::slice_end(deadline));
  }
}

}  // namespace cosim::wire
