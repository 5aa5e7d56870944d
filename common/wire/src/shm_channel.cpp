#include "deadline.hpp"
#include "setup_fail.hpp"
#include "posix_text.hpp"
#include "ready_wait.hpp"
#include "path_registry.hpp"

#include <cosim/util/text.hpp>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/shm_channel.hpp>

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/permissions.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <thread>
#include <utility>

#if !defined(__linux__)
#error "shm_channel.cpp is Linux only: it sleeps on futexes and finds its segments in /dev/shm"
#endif

namespace cosim::wire {
namespace {

namespace bip = boost::interprocess;
using Clock = detail::Clock;
using detail::Backoff;
using detail::mode_text;
using detail::os_error;
using detail::owner_text;
using detail::deadline_after;
using detail::seconds_text;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;

constexpr milliseconds kWaitSlice = detail::kStopPollSlice;
constexpr std::uint32_t kShmMagic = 0x4d485343;  // "CSHM" in memory (little-endian)
constexpr std::uint32_t kLayoutVersion = 2;
constexpr const char* kSegmentPrefix = "cosim-shm-";
constexpr const char* kShmDir = "/dev/shm/";  // where glibc's shm_open() keeps segments
// Two 64-byte lines: the counters one side writes never share the pair of lines the
// adjacent-line prefetcher moves together with the other side's.
constexpr std::size_t kLineBytes = 128;
// A big write is published in pieces of this size, so the reader starts copying early.
constexpr std::size_t kPublishBytes = 64 * 1024;
// A live dynamics side initialises a segment it just created within microseconds; one still
// uninitialised after this long was left by a run that died during setup.
constexpr milliseconds kInitGrace{500};
// Creating the segment is retried after removing a stale one; a name that keeps coming back
// means someone else keeps creating it.
constexpr int kCreateAttempts = 5;

// Spinning: detail::SpinPolicy (ready_wait.hpp), as for the FIFO and TCP channels; here the
// spin reads the ring in memory instead of polling a descriptor.

static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<std::int32_t>::is_always_lock_free);
// Futex words are plain 32-bit integers in shared memory: the atomics must be exactly that.
static_assert(sizeof(std::atomic<std::uint32_t>) == 4 && sizeof(std::atomic<std::int32_t>) == 4);
static_assert((kShmRingBytes & (kShmRingBytes - 1)) == 0, "ring positions are masked");

// ---- the segment ----
// Built by the dynamics side (placement new on the zero-filled object), then used by both
// processes through their own mappings; the visual side reads it only after seeing `magic`
// (acquire), which the dynamics side stores last (release).

/// One side of the session.
struct Side {
  /// Its process id; 0 = not there yet. The visual slot is a futex word the dynamics side
  /// sleeps on in listen(), and -1 once the dynamics side stopped waiting (no one may join).
  std::atomic<std::int32_t> pid;
  /// 1 once this side called close(): the peer's reads drain the ring, then peer_closed.
  std::atomic<std::uint32_t> closed;
  /// Start time of `pid` [clock ticks since boot, /proc/PID/stat field 22]; 0 = unknown.
  /// Tells a live process from a new one that got a dead run's pid.
  std::atomic<std::uint64_t> start_ticks;
  /// The CPU it last waited on (sched_getcpu), -1 = unknown: see detail::move_off_cpu().
  std::atomic<std::int32_t> cpu;
};

struct alignas(kLineBytes) Header {
  // magic, layout_version and dynamics.pid keep these offsets in every layout version, so a
  // later version can still tell a live segment from a stale one.
  std::atomic<std::uint32_t> magic;  ///< kShmMagic once initialised
  std::uint32_t layout_version;      ///< kLayoutVersion
  Side dynamics;
  Side visual;
  std::uint64_t ring_bytes;  ///< kShmRingBytes
  /// Session generation: creation time of the segment [ns, CLOCK_REALTIME]. A session is
  /// never restarted in place (a new dynamics makes a new segment), so it only names the
  /// session in a debugger or a dump of /dev/shm.
  std::uint64_t session;
};

/// Single-producer/single-consumer byte ring: bytes [tail, head) are unread, at
/// data[position % kShmRingBytes]. Counters only grow (2^64 bytes never wrap in practice).
struct Ring {
  alignas(kLineBytes) std::atomic<std::uint64_t> head;  ///< [bytes] written in all (producer)
  alignas(kLineBytes) std::atomic<std::uint64_t> tail;  ///< [bytes] read in all (consumer)
  /// Futex word: bumped, when someone sleeps, after head, tail or a closed flag changed.
  /// The producer waits on it for room, the consumer for data (never both: a ring is not
  /// full and empty at once), the closing side wakes both.
  alignas(kLineBytes) std::atomic<std::uint32_t> seq;
  /// Threads sleeping, or about to, on `seq`: wakers skip the FUTEX_WAKE syscall when 0.
  std::atomic<std::uint32_t> sleepers;
  alignas(kLineBytes) std::byte data[kShmRingBytes];
};

struct Segment {
  Header header;
  Ring d2v;  ///< dynamics writes, visual reads
  Ring v2d;  ///< visual writes, dynamics reads
};

// ---- small helpers ----

std::string boost_error(const bip::interprocess_exception& e) {
  return e.get_native_error() != 0 ? os_error(e.get_native_error()) : std::string(e.what());
}

using detail::fail;

std::string segment_name(std::string_view name) { return kSegmentPrefix + std::string(name); }

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Shared (not _PRIVATE) futex operations: the word lives in memory mapped by two processes.
void futex_wait(void* word, std::uint32_t expected, Clock::duration timeout) noexcept {
  const auto ns = std::max<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count(), 0);
  const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  // Returns on a wake, a changed word (EAGAIN), a signal (EINTR) or the timeout: every caller
  // re-checks its condition, so the result itself does not matter.
  ::syscall(SYS_futex, word, FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake_all(void* word) noexcept { ::syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }

using detail::ProcStat;
using detail::read_proc_stat;

std::uint64_t own_start_ticks() {
  ProcStat st;
  return read_proc_stat(::getpid(), st) ? st.start_ticks : 0;
}

/// True if `pid` runs and is the process that recorded `start_ticks` (0: not checked). A
/// zombie is dead: its parent just has not reaped it yet. Async-signal-safe, no allocation.
bool process_alive(pid_t pid, std::uint64_t start_ticks) noexcept {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;  // EPERM: exists, someone else's
  ProcStat st;
  if (!read_proc_stat(pid, st)) return true;  // no /proc: kill() said it exists
  if (st.state == 'Z' || st.state == 'X' || st.state == 'x') return false;
  return start_ticks == 0 || st.start_ticks == 0 || st.start_ticks == start_ticks;
}

/// This end's view of one ring.
struct RingEnd {
  Ring* ring = nullptr;
  std::uint64_t position = 0;       // [bytes] our counter: head if we write, tail if we read
  std::uint64_t peer_position = 0;  // [bytes] last seen counter of the other end
  detail::SpinPolicy spin;
  Clock::time_point next_liveness_check{};  // pid checks at most once per wait slice

  // Unread bytes, reloading the producer's head only when the cached value shows < `want`.
  // Both counters come from shared memory: callers treat a result above kShmRingBytes as corrupt.
  std::size_t readable(std::size_t want) noexcept {
    if (peer_position - position < want) peer_position = ring->head.load(std::memory_order_acquire);
    return static_cast<std::size_t>(peer_position - position);
  }
  // Free bytes, reloading the consumer's tail only when the cached value shows < `want`.
  std::size_t writable(std::size_t want) noexcept {
    if (kShmRingBytes - (position - peer_position) < want) peer_position = ring->tail.load(std::memory_order_acquire);
    return kShmRingBytes - static_cast<std::size_t>(position - peer_position);
  }
};

/// Wakes the other end if it sleeps on `ring` after we moved a counter. The fence pairs with
/// the one in ShmChannel::Impl::wait(): either we see its `sleepers` increment and wake it,
/// or it sees our counter and does not sleep. No syscall when nobody sleeps.
void wake_sleepers(Ring& ring) noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (ring.sleepers.load(std::memory_order_relaxed) == 0) return;
  ring.seq.fetch_add(1, std::memory_order_release);
  futex_wake_all(&ring.seq);
}

/// The segment listen() created: its name is removed again on every way out (destructor,
/// remove_created_files(), a failed listen(), a fatal-signal handler through the path
/// registry), unless someone has replaced it meanwhile.
class CreatedSegment {
 public:
  CreatedSegment() = default;
  CreatedSegment(const CreatedSegment&) = delete;
  CreatedSegment& operator=(const CreatedSegment&) = delete;
  ~CreatedSegment() { remove(); }

  void set(std::string name, std::string path, const struct stat& st) {
    name_ = std::move(name);
    path_ = std::move(path);
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    slot_ = detail::register_path(path_.c_str(), /*is_directory=*/false);  // shm_unlink = unlink of this file
  }

  void remove() noexcept {
    if (name_.empty()) return;
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) {
      bip::shared_memory_object::remove(name_.c_str());
    }
    detail::unregister_path(slot_);
    slot_ = -1;
    name_.clear();
  }

 private:
  std::string name_;
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  int slot_ = -1;
};

/// Opens the existing segment; nullopt if there is none (any more).
std::optional<bip::shared_memory_object> open_existing(const std::string& segment, const std::string& where,
                                                       const std::string& path) {
  try {
    return bip::shared_memory_object(bip::open_only, segment.c_str(), bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    if (e.get_error_code() == bip::not_found_error) return std::nullopt;
    fail(Kind::io, where + ": cannot open shared memory " + path + ": " + boost_error(e));
  }
}

int fd_of(const bip::shared_memory_object& shm) { return shm.get_mapping_handle().handle; }

/// Refuses what the name must not be: a symlink or other non-file, someone else's segment,
/// and (if `require_private`) one that group or others may open. By path (lstat) before
/// opening, for a precise message; by fd (fstat) after, which is what counts.
void check_segment(const struct stat& st, const std::string& where, const std::string& path, bool require_private) {
  if (S_ISLNK(st.st_mode)) fail(Kind::bad_input, where + ": " + path + " is a symlink; refusing it");
  if (!S_ISREG(st.st_mode)) fail(Kind::bad_input, where + ": " + path + " is not a shared memory segment; refusing it");
  if (st.st_uid != ::geteuid()) fail(Kind::bad_input, where + ": " + path + " is " + owner_text(st) + "; refusing it");
  if (require_private && (st.st_mode & 077) != 0) {
    fail(Kind::bad_input, where + ": " + path + " is accessible by group/others (mode " + mode_text(st.st_mode) +
                              "); refusing it");
  }
}

/// listen() found a segment of that name: refuse it (someone else's, not ours, or the live
/// session of another dynamics side) or remove it (left by a dead run).
void remove_stale_segment(const std::string& segment, const std::string& path, const std::string& where,
                          Clock::time_point deadline) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;  // gone meanwhile
    fail(Kind::io, where + ": cannot stat " + path + ": " + os_error(errno));
  }
  check_segment(st, where, path, /*require_private=*/false);
  auto shm = open_existing(segment, where, path);
  if (!shm) return;
  if (::fstat(fd_of(*shm), &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
  check_segment(st, where, path, /*require_private=*/false);

  // Whose is it? Its dynamics pid is valid once magic is set; a creator that is still
  // initialising gets kInitGrace, one that never finishes died during its setup.
  pid_t owner = 0;
  std::uint64_t owner_start = 0;
  for (const auto grace_end = Clock::now() + kInitGrace;;) {
    if (st.st_size >= static_cast<off_t>(sizeof(Header))) {
      try {
        const bip::mapped_region header(*shm, bip::read_only, 0, sizeof(Header));
        const auto* h = static_cast<const Header*>(header.get_address());
        const std::uint32_t magic = h->magic.load(std::memory_order_acquire);
        if (magic != 0 && magic != kShmMagic) {
          fail(Kind::bad_input, where + ": " + path + " is not a cosim channel segment; refusing it");
        }
        if (magic == kShmMagic) {
          owner = h->dynamics.pid.load(std::memory_order_relaxed);
          owner_start = h->dynamics.start_ticks.load(std::memory_order_relaxed);
          break;
        }
      } catch (const bip::interprocess_exception& e) {
        fail(Kind::io, where + ": cannot map " + path + ": " + boost_error(e));
      }
    }
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while checking an existing segment");
    if (Clock::now() >= std::min(grace_end, deadline)) break;
    std::this_thread::sleep_for(milliseconds(1));
    if (::fstat(fd_of(*shm), &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
  }
  if (owner != 0 && process_alive(owner, owner_start)) {
    fail(Kind::bad_input, where + ": in use by another cosim-dynamics (pid " + std::to_string(owner) +
                              "); one session per channel");
  }
  // Stale: remove it if the name still is what we inspected.
  struct stat now {};
  if (::lstat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
    bip::shared_memory_object::remove(segment.c_str());
  }
}

}  // namespace

struct ShmChannel::Impl {
  Impl(std::string n, bool dynamics) : name(std::move(n)), description("shm:" + name), dynamics_side(dynamics) {}

  // Points this end at a mapped, initialised segment.
  void attach(Segment* seg) noexcept {
    segment = seg;
    self = dynamics_side ? &seg->header.dynamics : &seg->header.visual;
    peer = dynamics_side ? &seg->header.visual : &seg->header.dynamics;
    out.ring = dynamics_side ? &seg->d2v : &seg->v2d;
    in.ring = dynamics_side ? &seg->v2d : &seg->d2v;
    out.position = out.ring->head.load(std::memory_order_relaxed);
    out.peer_position = out.ring->tail.load(std::memory_order_acquire);
    in.position = in.ring->tail.load(std::memory_order_relaxed);
    in.peer_position = in.ring->head.load(std::memory_order_acquire);
  }

  bool peer_closed_flag() const noexcept {
    return peer->closed.load(std::memory_order_acquire) != 0 || peer_dead.load(std::memory_order_relaxed);
  }

  // The peer closed, or its process is gone (checked at most once per wait slice per direction).
  bool peer_gone(RingEnd& dir) noexcept {
    if (peer_closed_flag()) return true;
    const auto now = Clock::now();
    if (now < dir.next_liveness_check) return false;
    dir.next_liveness_check = now + kWaitSlice;
    if (process_alive(peer->pid.load(std::memory_order_relaxed), peer->start_ticks.load(std::memory_order_relaxed))) {
      return false;
    }
    peer_dead.store(true, std::memory_order_relaxed);
    return true;
  }

  // Waits until ready() (room or data, or the peer's closed flag), spinning first while
  // spins pay, then sleeping on the ring's futex in slices of <= 100 ms. Readiness is checked
  // before a stop, a dead peer or the timeout is reported, so a past deadline is one check.
  template <class Ready>
  std::error_code wait(RingEnd& dir, Ready ready, Clock::time_point deadline) {
    self->cpu.store(::sched_getcpu(), std::memory_order_relaxed);
    if (const auto budget = dir.spin.budget(); budget.count() > 0 && Clock::now() < deadline) {
      const auto spin_end = std::min(deadline, Clock::now() + budget);
      bool paid = false;
      for (unsigned i = 1;; ++i) {
        if (ready()) {
          paid = true;
          break;
        }
        cpu_relax();
        if (i % 16 == 0 && (Clock::now() >= spin_end || stop_requested())) break;  // clock: ~20 ns, vDSO
      }
      if (paid || spin_end < deadline) dir.spin.spun(paid);  // a spin cut short by the deadline proves nothing
      if (paid) return {};
      detail::move_off_cpu(peer->cpu.load(std::memory_order_relaxed));  // see ready_wait.hpp
    }
    Ring& ring = *dir.ring;
    for (;;) {
      if (ready()) return {};
      if (peer_gone(dir)) return Errc::peer_closed;
      if (stop_requested()) return Errc::interrupted;
      const auto now = Clock::now();
      if (now >= deadline) return Errc::timeout;
      ring.sleepers.fetch_add(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with wake_sleepers()
      const std::uint32_t seq = ring.seq.load(std::memory_order_acquire);
      if (!ready()) futex_wait(&ring.seq, seq, std::min<Clock::duration>(deadline - now, kWaitSlice));
      ring.sleepers.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  std::string name;
  std::string description;
  bool dynamics_side;
  CreatedSegment created;     // listen() side only; outlives region: unmapped, then unlinked
  bip::mapped_region region;  // the whole segment, empty once closed
  Segment* segment = nullptr;  // null once closed
  Side* self = nullptr;
  Side* peer = nullptr;
  RingEnd out;  // the ring we write
  RingEnd in;   // the ring we read
  std::atomic<bool> peer_dead{false};  // the peer's process was found gone (sticky)
};

ShmChannel::ShmChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ShmChannel::~ShmChannel() {
  close();
  remove_created_files();
}

std::string ShmChannel::name_problem(std::string_view name) {
  if (name.empty()) return "empty NAME";
  if (name.size() > kShmMaxNameBytes) {
    return "NAME has " + std::to_string(name.size()) + " characters, at most " + std::to_string(kShmMaxNameBytes) +
           " are allowed";
  }
  for (const char c : name) {
    if (!valid_name_char(c)) {
      return "NAME '" + util::printable(name) + "' holds '" + util::printable({&c, 1}) +
             "'; use only letters, digits, '.', '_' and '-'";
    }
  }
  return {};
}

std::string ShmChannel::segment_path(std::string_view name) { return kShmDir + segment_name(name); }

std::unique_ptr<ShmChannel> ShmChannel::listen(const ShmOptions& options) {
  if (const std::string why = name_problem(options.name); !why.empty()) fail(Kind::bad_input, "shm channel: " + why);
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(options.name, /*dynamics=*/true);
  const std::string& where = impl->description;
  const std::string segment = segment_name(options.name);
  const std::string path = segment_path(options.name);

  // Create it (owner only); an existing one is refused or, left by a dead run, replaced.
  std::optional<bip::shared_memory_object> shm;
  for (int attempt = 1; !shm; ++attempt) {
    try {
      shm.emplace(bip::create_only, segment.c_str(), bip::read_write, bip::permissions(0600));
      break;
    } catch (const bip::interprocess_exception& e) {
      if (e.get_error_code() != bip::already_exists_error) {
        fail(Kind::io, where + ": cannot create shared memory " + path + ": " + boost_error(e));
      }
    }
    if (attempt == kCreateAttempts) {
      fail(Kind::io, where + ": " + path + " keeps reappearing after removal; is another program creating it?");
    }
    remove_stale_segment(segment, path, where, deadline);
  }
  const int fd = fd_of(*shm);
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
  impl->created.set(segment, path, st);  // from here on, every way out removes it
  if (st.st_uid != ::geteuid()) fail(Kind::bad_input, where + ": " + path + " is " + owner_text(st) + "; refusing it");
  if ((st.st_mode & 07777) != 0600 && ::fchmod(fd, 0600) != 0) {  // exact mode whatever the umask
    fail(Kind::io, where + ": cannot chmod 600 " + path + ": " + os_error(errno));
  }

  Segment* seg = nullptr;
  try {
    shm->truncate(static_cast<bip::offset_t>(sizeof(Segment)));
    bip::mapped_region(*shm, bip::read_write).swap(impl->region);
    seg = new (impl->region.get_address()) Segment;  // default-init: zeroes the atomics only
  } catch (const bip::interprocess_exception& e) {
    fail(Kind::io, where + ": cannot size and map " + std::to_string(sizeof(Segment)) + " bytes of " + path + ": " +
                       boost_error(e) + " (is /dev/shm full?)");
  }
  Header& h = seg->header;
  h.layout_version = kLayoutVersion;
  h.ring_bytes = kShmRingBytes;
  timespec now_real{};
  ::clock_gettime(CLOCK_REALTIME, &now_real);
  h.session = static_cast<std::uint64_t>(now_real.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now_real.tv_nsec);
  h.dynamics.cpu.store(-1, std::memory_order_relaxed);  // 0 would name a CPU
  h.visual.cpu.store(-1, std::memory_order_relaxed);
  h.dynamics.start_ticks.store(own_start_ticks(), std::memory_order_relaxed);
  h.dynamics.pid.store(::getpid(), std::memory_order_relaxed);
  h.magic.store(kShmMagic, std::memory_order_release);  // publishes everything above

  // Wait for a visual side to take the visual slot (it wakes us through the futex).
  for (;;) {
    if (h.visual.pid.load(std::memory_order_acquire) > 0) break;
    const bool stop = stop_requested();
    const auto now = Clock::now();
    if (stop || now >= deadline) {
      // Close the slot, unless a visual side took it just now: then the session is on.
      std::int32_t expected = 0;
      if (!h.visual.pid.compare_exchange_strong(expected, -1, std::memory_order_acq_rel)) continue;
      if (stop) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) +
                              " (is the visual side running with --channel " + where + "?)");
    }
    futex_wait(&h.visual.pid, 0, std::min<Clock::duration>(deadline - now, kWaitSlice));
  }
  impl->attach(seg);
  return std::unique_ptr<ShmChannel>(new ShmChannel(std::move(impl)));
}

std::unique_ptr<ShmChannel> ShmChannel::connect(const ShmOptions& options) {
  if (const std::string why = name_problem(options.name); !why.empty()) fail(Kind::bad_input, "shm channel: " + why);
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(options.name, /*dynamics=*/false);
  const std::string& where = impl->description;
  const std::string segment = segment_name(options.name);
  const std::string path = segment_path(options.name);
  std::string waiting_for;  // why the last attempt did not join, for the timeout message

  // One attempt: true once joined. False (with waiting_for) when there is nothing to join
  // yet: no segment, one being initialised, or one left by a dead run or a past session.
  const auto try_join = [&]() -> bool {
    waiting_for = "is the dynamics side running with --channel " + where + "?";
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return false;
      fail(Kind::io, where + ": cannot stat " + path + ": " + os_error(errno));
    }
    check_segment(st, where, path, /*require_private=*/true);
    auto shm = open_existing(segment, where, path);
    if (!shm) return false;
    if (::fstat(fd_of(*shm), &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
    check_segment(st, where, path, /*require_private=*/true);
    if (st.st_size < static_cast<off_t>(sizeof(Header))) return false;  // being initialised

    bip::mapped_region region;
    try {
      bip::mapped_region(*shm, bip::read_write).swap(region);
    } catch (const bip::interprocess_exception& e) {
      fail(Kind::io, where + ": cannot map " + path + ": " + boost_error(e));
    }
    // Built by the dynamics side in its mapping of the same object; published by `magic`.
    auto* seg = static_cast<Segment*>(region.get_address());
    Header& h = seg->header;
    const std::uint32_t magic = h.magic.load(std::memory_order_acquire);
    if (magic == 0) return false;  // being initialised
    if (magic != kShmMagic) fail(Kind::bad_input, where + ": " + path + " is not a cosim channel segment; refusing it");
    if (h.layout_version != kLayoutVersion || h.ring_bytes != kShmRingBytes ||
        st.st_size != static_cast<off_t>(sizeof(Segment))) {
      fail(Kind::bad_input, where + ": segment layout version " + std::to_string(h.layout_version) +
                                " (this program uses " + std::to_string(kLayoutVersion) +
                                "): the dynamics side runs another cosim version");
    }
    const pid_t dynamics = h.dynamics.pid.load(std::memory_order_relaxed);
    const std::string dynamics_text = "its dynamics side (pid " + std::to_string(dynamics) + ")";
    if (!process_alive(dynamics, h.dynamics.start_ticks.load(std::memory_order_relaxed))) {
      waiting_for = path + " is left by a dead run: " + dynamics_text + " is gone; is a new dynamics side running with --channel " + where + "?";
      return false;
    }
    if (h.dynamics.closed.load(std::memory_order_acquire) != 0) {
      waiting_for = dynamics_text + " has closed its session; is a new dynamics side starting?";
      return false;
    }
    std::int32_t expected = 0;
    if (!h.visual.pid.compare_exchange_strong(expected, static_cast<std::int32_t>(::getpid()),
                                              std::memory_order_acq_rel)) {
      if (expected < 0) {
        waiting_for = dynamics_text + " stopped waiting for a visual side";
        return false;
      }
      if (process_alive(expected, h.visual.start_ticks.load(std::memory_order_relaxed))) {
        fail(Kind::bad_input, where + ": in use by another visual side (pid " + std::to_string(expected) +
                                  "); one session per channel");
      }
      fail(Kind::bad_input, where + ": the session of " + dynamics_text + " already had a visual side (pid " +
                                std::to_string(expected) + ", now gone); restart the dynamics side");
    }
    h.visual.start_ticks.store(own_start_ticks(), std::memory_order_relaxed);
    futex_wake_all(&h.visual.pid);
    impl->region.swap(region);
    impl->attach(seg);
    return true;
  };

  Backoff backoff;
  for (;;) {
    if (try_join()) return std::unique_ptr<ShmChannel>(new ShmChannel(std::move(impl)));
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    if (Clock::now() >= deadline) {
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) + " (" +
                              waiting_for + ")");
    }
    backoff.sleep_until_at_most(deadline);
  }
}

std::error_code ShmChannel::write_all(std::span<const std::byte> bytes, milliseconds timeout) {
  Impl& m = *impl_;
  if (bytes.empty()) return {};
  if (m.segment == nullptr) return Errc::io_error;
  RingEnd& out = m.out;
  Ring& ring = *out.ring;
  std::optional<Clock::time_point> deadline;  // only computed when we have to wait
  std::size_t done = 0;
  while (done < bytes.size()) {
    if (m.peer_closed_flag()) return Errc::peer_closed;
    // Write first: the ring almost always has room.
    const std::size_t want = std::min(bytes.size() - done, kPublishBytes);
    const std::size_t room = out.writable(want);
    if (room > kShmRingBytes) return Errc::io_error;  // tail ahead of head: a corrupt segment
    if (room != 0) {
      const std::size_t n = std::min(room, want);
      const std::size_t at = static_cast<std::size_t>(out.position) & (kShmRingBytes - 1);
      const std::size_t first = std::min(n, kShmRingBytes - at);
      std::memcpy(ring.data + at, bytes.data() + done, first);
      std::memcpy(ring.data, bytes.data() + done + first, n - first);
      out.position += n;
      ring.head.store(out.position, std::memory_order_release);
      wake_sleepers(ring);
      done += n;
      continue;
    }
    if (!deadline) deadline = deadline_after(timeout);
    const auto ready = [&] {
      return out.writable(1) != 0 || m.peer->closed.load(std::memory_order_acquire) != 0;
    };
    if (auto ec = m.wait(out, ready, *deadline)) return ec;
  }
  return {};
}

std::error_code ShmChannel::read_exact(std::span<std::byte> bytes, milliseconds timeout) {
  Impl& m = *impl_;
  if (bytes.empty()) return {};
  if (m.segment == nullptr) return Errc::io_error;
  RingEnd& in = m.in;
  Ring& ring = *in.ring;
  std::optional<Clock::time_point> deadline;  // only computed when we have to wait
  std::size_t done = 0;
  while (done < bytes.size()) {
    const std::size_t want = bytes.size() - done;
    const std::size_t available = in.readable(want);
    if (available > kShmRingBytes) return Errc::io_error;  // more than the ring holds: a corrupt segment
    if (available != 0) {
      const std::size_t n = std::min(available, want);
      const std::size_t at = static_cast<std::size_t>(in.position) & (kShmRingBytes - 1);
      const std::size_t first = std::min(n, kShmRingBytes - at);
      std::memcpy(bytes.data() + done, ring.data + at, first);
      std::memcpy(bytes.data() + done + first, ring.data, n - first);
      in.position += n;
      ring.tail.store(in.position, std::memory_order_release);
      wake_sleepers(ring);
      done += n;
      continue;
    }
    // Empty. A closed peer's last bytes were published before its flag (release/acquire):
    // one more look at head after seeing the flag finds them.
    if (m.peer_closed_flag()) {
      if (in.readable(1) != 0) continue;
      return Errc::peer_closed;
    }
    if (!deadline) deadline = deadline_after(timeout);
    const auto ready = [&] { return in.readable(1) != 0 || m.peer->closed.load(std::memory_order_acquire) != 0; };
    if (auto ec = m.wait(in, ready, *deadline); ec && ec != Errc::peer_closed) return ec;
  }
  return {};
}

bool ShmChannel::readable_now() {
  Impl& m = *impl_;
  if (m.segment == nullptr) return true;  // a read fails at once
  return m.in.readable(1) != 0 || m.peer_gone(m.in);
}

void ShmChannel::close() noexcept {
  Impl& m = *impl_;
  if (m.segment == nullptr) return;
  m.self->closed.store(1, std::memory_order_seq_cst);
  // Wake the peer wherever it sleeps (reading one ring, or writing the other).
  for (Ring* ring : {&m.segment->d2v, &m.segment->v2d}) {
    ring->seq.fetch_add(1, std::memory_order_release);
    futex_wake_all(&ring->seq);
  }
  m.segment = nullptr;
  m.self = m.peer = nullptr;
  m.in.ring = m.out.ring = nullptr;
  bip::mapped_region().swap(m.region);  // unmaps
}

std::string ShmChannel::describe() const { return impl_->description; }

void ShmChannel::remove_created_files() noexcept { impl_->created.remove(); }

}  // namespace cosim::wire
