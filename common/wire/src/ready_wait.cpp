#include "ready_wait.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>

#ifdef _WIN32
#include <winsock2.h>
#else
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace cosim::wire::detail {
namespace {

#ifdef _WIN32
using PollFd = WSAPOLLFD;
int poll_one(PollFd& p, int timeout_ms) { return ::WSAPoll(&p, 1, timeout_ms); }
bool interrupted_call() { return false; }  // WSAPoll is not interrupted by signals
#else
using PollFd = pollfd;
int poll_one(PollFd& p, int timeout_ms) { return ::poll(&p, 1, timeout_ms); }
bool interrupted_call() { return errno == EINTR; }
#endif

PollFd poll_fd(NativeHandle handle, Ready what) {
  PollFd p{};
  p.fd = handle;
  p.events = what == Ready::read ? POLLIN : POLLOUT;
  return p;
}

}  // namespace

SpinMode spin_mode() noexcept {
  static const SpinMode mode = [] {
    const char* text = std::getenv("COSIM_SPIN");
    const std::string_view value = text != nullptr ? text : "";
    if (value == "always") return SpinMode::always;
    if (value == "never") return SpinMode::never;
    return SpinMode::adaptive;
  }();
  return mode;
}

std::error_code wait_ready(NativeHandle handle, Ready what, Clock::time_point deadline, SpinPolicy& spin) {
  if (const auto budget = spin.budget(); budget.count() > 0) {
    const auto spin_end = std::min(deadline, Clock::now() + budget);
    bool caught = false;
    do {
      PollFd p = poll_fd(handle, what);
      if (poll_one(p, 0) > 0) {
        caught = true;
        break;
      }
    } while (Clock::now() < spin_end && !stop_requested());
    // A spin cut short by the deadline says nothing about whether spinning pays.
    if (caught || spin_end < deadline) spin.spun(caught);
    if (caught) return {};
  }
  for (bool first = true;; first = false) {
    const auto now = Clock::now();
    const auto left = deadline > now ? deadline - now : Clock::duration::zero();
    const bool stop_now = first && stop_requested();
    const int slice_ms = stop_now ? 0
                                  : static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(
                                                         std::min<Clock::duration>(left, kStopPollSlice))
                                                         .count());
    PollFd p = poll_fd(handle, what);
    const int r = poll_one(p, slice_ms);
    if (r > 0) return {};
    if (r < 0 && !interrupted_call()) return Errc::io_error;
    if (stop_requested()) return Errc::interrupted;
    if (Clock::now() >= deadline) return Errc::timeout;
  }
}

#ifdef _WIN32
void move_off_cpu(int) noexcept {}
bool read_proc_stat(int, ProcStat&) noexcept { return false; }
int cpu_of_process(int) noexcept { return -1; }
#else
void move_off_cpu(int peer_cpu) noexcept {
  static const bool off = [] {
    const char* text = std::getenv("COSIM_MOVE");
    return text != nullptr && std::string_view(text) == "off";
  }();
  if (off || peer_cpu < 0) return;
  const int mine = ::sched_getcpu();
  if (mine != peer_cpu) return;
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
  cpu_set_t others = allowed;
  CPU_CLR(mine, &others);
  if (::sched_setaffinity(0, sizeof others, &others) == 0) ::sched_setaffinity(0, sizeof allowed, &allowed);
}

bool read_proc_stat(int pid, ProcStat& out) noexcept {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[1024];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  // "PID (COMM) STATE PPID ...": COMM may hold ')' and spaces, so parse after the last ')'.
  const char* p = std::strrchr(text, ')');
  if (p == nullptr || p[1] != ' ') return false;
  p += 2;  // field 3, the state
  out.state = *p;
  // Moves p to the start of field `to` (p is at the start of field `at`).
  const auto skip_to = [&p](int at, int to) {
    for (; at < to; ++at) {
      p = std::strchr(p, ' ');
      if (p == nullptr) return false;
      ++p;
    }
    return true;
  };
  if (!skip_to(3, 22)) return false;  // starttime
  out.start_ticks = std::strtoull(p, nullptr, 10);
  out.cpu = skip_to(22, 39) ? std::atoi(p) : -1;  // processor
  return true;
}

int cpu_of_process(int pid) noexcept {
  ProcStat st;
  return pid > 0 && read_proc_stat(pid, st) ? st.cpu : -1;
}
#endif

bool readable_now(NativeHandle handle) noexcept {
  PollFd p = poll_fd(handle, Ready::read);
  return poll_one(p, 0) != 0;  // ready, hung up, or poll failed: a read would not block
}

}  // namespace cosim::wire::detail
