#include "deadline.hpp"
#include "setup_fail.hpp"
#include "posix_text.hpp"
#include "read_buffer.hpp"
#include "path_registry.hpp"
#include "ready_wait.hpp"

#include <cosim/wire/errors.hpp>
#include <cosim/wire/fifo_channel.hpp>
#include <cosim/wire/interrupt.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace cosim::wire {
namespace {

namespace fs = std::filesystem;
using Clock = detail::Clock;
using detail::Backoff;
using detail::deadline_after;
using detail::mode_text;
using detail::os_error;
using detail::owner_text;
using detail::seconds_text;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;

constexpr const char* kD2v = "d2v";
constexpr const char* kV2d = "v2d";

std::string spec(const fs::path& dir) { return "fifo:" + dir.string(); }

using detail::fail;

void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    reset(std::exchange(o.fd_, -1));
    return *this;
  }
  ~UniqueFd() { reset(); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// A FIFO we open must be a FIFO owned by us: anything else could be someone's trap.
void check_fifo_fd(int fd, const std::string& where) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
  if (!S_ISFIFO(st.st_mode)) fail(Kind::bad_input, where + ": not a FIFO; refusing it");
  if (st.st_uid != ::geteuid()) fail(Kind::bad_input, where + ": " + owner_text(st) + "; refusing it");
}

// Opens DIR without following a symlink; the message says why it was refused.
UniqueFd open_dir(const fs::path& dir, const std::string& where) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd) return fd;
  const int err = errno;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    fail(Kind::bad_input, where + ": directory is a symlink; refusing it (use the real path)");
  }
  if (err == ENOTDIR) fail(Kind::bad_input, where + ": not a directory");
  fail(Kind::io, where + ": cannot open directory: " + os_error(err));
}

/// The pid holding a flock on the file of `fd`, from /proc/locks (Linux), or 0 if unknown.
pid_t lock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  std::FILE* locks = std::fopen("/proc/locks", "re");
  if (locks == nullptr) return 0;
  pid_t holder = 0;
  char line[256];
  while (holder == 0 && std::fgets(line, sizeof line, locks) != nullptr) {
    if (std::strstr(line, "->") != nullptr) continue;  // a waiter, not a holder
    char kind[16], mode[16], access[16];
    long pid = 0;
    unsigned major = 0, minor = 0;
    unsigned long long inode = 0;
    if (std::sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", kind, mode, access, &pid, &major, &minor, &inode) == 7 &&
        std::strcmp(kind, "FLOCK") == 0 && major == ::major(st.st_dev) && minor == ::minor(st.st_dev) &&
        inode == static_cast<unsigned long long>(st.st_ino)) {
      holder = static_cast<pid_t>(pid);
    }
  }
  std::fclose(locks);
  return holder;
}

/// One dynamics and one visual side per channel folder: each holds an exclusive flock for
/// its session's lifetime (the dynamics on the folder, the visual side on d2v), so a second
/// one is refused before it touches the first session's FIFOs.
void lock_or_refuse(int fd, const std::string& where, const char* who) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
  if (errno != EWOULDBLOCK) fail(Kind::io, where + ": cannot lock: " + os_error(errno));
  const pid_t holder = lock_holder(fd);
  fail(Kind::bad_input, where + ": in use by another " + who +
                            (holder > 0 ? " (pid " + std::to_string(holder) + ")" : std::string()) +
                            "; one session per channel folder");
}

// Files listen() created, removed again unless someone replaced them meanwhile.
class CreatedFiles {
 public:
  CreatedFiles() = default;
  CreatedFiles(const CreatedFiles&) = delete;
  CreatedFiles& operator=(const CreatedFiles&) = delete;
  ~CreatedFiles() { remove(); }

  void add(const fs::path& path, const struct stat& st, bool is_directory) {
    entries_.push_back({path.string(), st.st_dev, st.st_ino, is_directory,
                        detail::register_path(path.c_str(), is_directory)});
  }

  void remove() noexcept {
    // FIFOs first (added after the directory), then the directory if it is empty.
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      struct stat st {};
      if (::lstat(it->path.c_str(), &st) == 0 && st.st_dev == it->dev && st.st_ino == it->ino) {
        if (it->is_directory) {
          ::rmdir(it->path.c_str());  // fails harmlessly if others put files there
        } else {
          ::unlink(it->path.c_str());
        }
      }
      detail::unregister_path(it->slot);
    }
    entries_.clear();
  }

 private:
  struct Entry {
    std::string path;
    dev_t dev;
    ino_t ino;
    bool is_directory;
    int slot;
  };
  std::vector<Entry> entries_;
};

}  // namespace

struct FifoChannel::Impl {
  explicit Impl(fs::path d) : dir(std::move(d)), description(spec(dir)) {}

  // POLLHUP on a FIFO read end: a writer was connected and none is left (Linux reports
  // no POLLHUP when no writer ever connected).
  bool reader_hangup() const noexcept {
    pollfd p{read_fd.get(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLHUP) != 0;
  }

  // After a read wait whose spin missed: detail::move_off_cpu() (ready_wait.hpp). The peer
  // is the process holding its session lock: the visual side's on d2v (our write end on the
  // dynamics side), the dynamics' on the folder.
  void leave_peer_cpu() {
    if (peer_pid == 0) {
      pid_t holder = 0;
      if (lock_fd) {
        holder = lock_holder(write_fd.get());
      } else if (const UniqueFd folder(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); folder) {
        holder = lock_holder(folder.get());
      }
      peer_pid = holder > 0 ? holder : -1;
    }
    if (peer_pid > 0) detail::move_off_cpu(detail::cpu_of_process(peer_pid));
  }

  fs::path dir;
  std::string description;
  int peer_pid = 0;   // 0: not looked up yet, -1: unknown
  UniqueFd read_fd;   // v2d on the dynamics side, d2v on the visual side
  UniqueFd write_fd;  // d2v on the dynamics side, v2d on the visual side
  detail::ReadBuffer read_buffer;
  bool writer_seen = false;  // read EOF means "closed" only once a writer was there
  CreatedFiles created;      // listen() side only
  UniqueFd lock_fd;          // listen() side: the folder, locked for the session
  detail::SpinPolicy read_spin;   // one per direction: a reader and a writer thread may wait at once
  detail::SpinPolicy write_spin;
};

FifoChannel::FifoChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FifoChannel::~FifoChannel() {
  close();
  remove_created_files();
}

std::unique_ptr<FifoChannel> FifoChannel::listen(const FifoOptions& options) {
  ignore_sigpipe_once();
  if (options.dir.empty()) fail(Kind::bad_input, "fifo channel: empty directory path");
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(options.dir);
  const std::string& where = impl->description;
  const fs::path& dir = options.dir;

  // Directory: create it private, or accept an existing one only if it is ours and private.
  bool created_dir = false;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(Kind::io, where + ": cannot stat directory: " + os_error(errno));
    if (::mkdir(dir.c_str(), 0700) == 0) {
      created_dir = true;
    } else if (errno != EEXIST) {
      fail(Kind::io, where + ": cannot create directory: " + os_error(errno));
    }
  }
  UniqueFd dir_fd = open_dir(dir, where);
  if (::fstat(dir_fd.get(), &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
  if (created_dir) {
    impl->created.add(dir, st, /*is_directory=*/true);
    ::fchmod(dir_fd.get(), 0700);  // exact mode whatever the umask
    st.st_mode = (st.st_mode & ~07777) | 0700;
  }
  if (st.st_uid != ::geteuid()) {
    fail(Kind::bad_input, where + ": directory is " + owner_text(st) + "; refusing it");
  }
  if ((st.st_mode & 077) != 0) {
    fail(Kind::bad_input, where + ": directory is accessible by group/others (mode " + mode_text(st.st_mode) +
                              "); chmod 700 it or use another directory");
  }

  lock_or_refuse(dir_fd.get(), where, "cosim-dynamics");
  impl->lock_fd = std::move(dir_fd);  // held (and locked) while the channel lives
  const int dir_fd_value = impl->lock_fd.get();

  // FIFOs: refuse what is not ours, replace our own stale ones (an old peer may hold them).
  for (const char* name : {kD2v, kV2d}) {
    const std::string fifo_where = where + "/" + name;
    struct stat fst {};
    if (::fstatat(dir_fd_value, name, &fst, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(fst.st_mode)) fail(Kind::bad_input, fifo_where + ": is a symlink; refusing it");
      if (!S_ISFIFO(fst.st_mode)) {
        fail(Kind::bad_input, fifo_where + ": exists and is not a FIFO; remove it or use another directory");
      }
      if (fst.st_uid != ::geteuid()) fail(Kind::bad_input, fifo_where + ": " + owner_text(fst) + "; refusing it");
      if (::unlinkat(dir_fd_value, name, 0) != 0) {
        fail(Kind::io, fifo_where + ": cannot remove stale FIFO: " + os_error(errno));
      }
    } else if (errno != ENOENT) {
      fail(Kind::io, fifo_where + ": cannot stat: " + os_error(errno));
    }
    if (::mkfifoat(dir_fd_value, name, 0600) != 0) {
      fail(Kind::io, fifo_where + ": cannot create FIFO: " + os_error(errno));
    }
    if (::fstatat(dir_fd_value, name, &fst, AT_SYMLINK_NOFOLLOW) != 0) {
      fail(Kind::io, fifo_where + ": cannot stat new FIFO: " + os_error(errno));
    }
    impl->created.add(dir / name, fst, /*is_directory=*/false);
    if ((fst.st_mode & 07777) != 0600) ::fchmodat(dir_fd_value, name, 0600, 0);  // umask-proof
  }

  // Read end first: opening it never blocks, and it lets the peer open v2d for writing.
  UniqueFd read_fd(::openat(dir_fd_value, kV2d, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!read_fd) fail(Kind::io, where + "/v2d: cannot open for reading: " + os_error(errno));
  check_fifo_fd(read_fd.get(), where + "/v2d");

  // Write end: ENXIO until the peer has opened d2v for reading.
  UniqueFd write_fd;
  Backoff backoff;
  for (;;) {
    write_fd.reset(::openat(dir_fd_value, kD2v, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
    if (write_fd) break;
    if (errno == EINTR) continue;
    if (errno != ENXIO) fail(Kind::io, where + "/d2v: cannot open for writing: " + os_error(errno));
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    if (Clock::now() >= deadline) {
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) +
                              " (is the visual side running with --channel " + where + "?)");
    }
    backoff.sleep_until_at_most(deadline);
  }
  check_fifo_fd(write_fd.get(), where + "/d2v");

  impl->read_fd = std::move(read_fd);
  impl->write_fd = std::move(write_fd);
  return std::unique_ptr<FifoChannel>(new FifoChannel(std::move(impl)));
}

std::unique_ptr<FifoChannel> FifoChannel::connect(const FifoOptions& options) {
  ignore_sigpipe_once();
  if (options.dir.empty()) fail(Kind::bad_input, "fifo channel: empty directory path");
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(options.dir);
  const std::string& where = impl->description;
  const fs::path d2v = options.dir / kD2v;
  const fs::path v2d = options.dir / kV2d;
  const auto waited = [&](const std::string& why) {
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    if (Clock::now() >= deadline) {
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) +
                              " (" + why + ")");
    }
  };
  Backoff backoff;

  // Each pass works on the FIFO files present; if the server replaces them (stale files of
  // a dead run), the pass notices and starts over on the new ones.
  for (bool first_pass = true;; first_pass = false) {
    if (!first_pass) {
      waited("the FIFOs kept being replaced");
      backoff.sleep_until_at_most(deadline);
    }
    struct stat st {};
    while (::lstat(d2v.c_str(), &st) != 0 || ::lstat(v2d.c_str(), &st) != 0) {
      waited("d2v and v2d never appeared: is the dynamics side running with --channel " + where + "?");
      backoff.sleep_until_at_most(deadline);
    }

    UniqueFd dir_fd = open_dir(options.dir, where);
    if (::fstat(dir_fd.get(), &st) != 0) fail(Kind::io, where + ": fstat failed: " + os_error(errno));
    if (st.st_uid != ::geteuid()) {
      fail(Kind::bad_input, where + ": directory is " + owner_text(st) + "; refusing it");
    }
    if ((st.st_mode & 077) != 0) {  // as the dynamics checks it: others could read the frames
      fail(Kind::bad_input, where + ": directory is accessible by group/others (mode " + mode_text(st.st_mode) +
                                "); chmod 700 it or use another directory");
    }

    UniqueFd read_fd(::openat(dir_fd.get(), kD2v, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
    if (!read_fd) {
      if (errno == ENOENT) continue;  // removed since lstat: start over
      if (errno == ELOOP) fail(Kind::bad_input, where + "/d2v: is a symlink; refusing it");
      fail(Kind::io, where + "/d2v: cannot open for reading: " + os_error(errno));
    }
    check_fifo_fd(read_fd.get(), where + "/d2v");
    lock_or_refuse(read_fd.get(), where, "visual side");
    struct stat read_st {};
    ::fstat(read_fd.get(), &read_st);

    // v2d: ENXIO until the server has opened its read end.
    UniqueFd write_fd;
    bool start_over = false;
    while (!write_fd && !start_over) {
      write_fd.reset(::openat(dir_fd.get(), kV2d, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
      if (write_fd) break;
      const int err = errno;
      if (err == EINTR) continue;
      if (err == ELOOP) fail(Kind::bad_input, where + "/v2d: is a symlink; refusing it");
      if (err == ENOENT) {
        start_over = true;
      } else if (err == ENXIO) {
        struct stat now_st {};
        const bool replaced = ::fstatat(dir_fd.get(), kD2v, &now_st, AT_SYMLINK_NOFOLLOW) != 0 ||
                              now_st.st_dev != read_st.st_dev || now_st.st_ino != read_st.st_ino;
        if (replaced) {
          start_over = true;
        } else {
          waited("d2v and v2d exist but nobody reads v2d: stale files of a dead run?");
          backoff.sleep_until_at_most(deadline);
        }
      } else {
        fail(Kind::io, where + "/v2d: cannot open for writing: " + os_error(err));
      }
    }
    if (start_over) continue;
    check_fifo_fd(write_fd.get(), where + "/v2d");

    // A server replacing stale FIFOs (d2v first, then v2d) can hand us its new v2d next to
    // the old d2v we hold. Keep that v2d: closing it would show the server a writer that
    // came and went (POLLHUP, read as peer_closed). Open the new d2v instead.
    const auto still_named = [&](const char* name, int fd) {
      struct stat by_name {}, by_fd {};
      return ::fstatat(dir_fd.get(), name, &by_name, AT_SYMLINK_NOFOLLOW) == 0 && ::fstat(fd, &by_fd) == 0 &&
             by_name.st_dev == by_fd.st_dev && by_name.st_ino == by_fd.st_ino;
    };
    if (!still_named(kV2d, write_fd.get())) continue;  // ours is stale: closing it disturbs nobody
    if (!still_named(kD2v, read_fd.get())) {
      read_fd.reset(::openat(dir_fd.get(), kD2v, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
      if (!read_fd) fail(Kind::io, where + "/d2v: cannot open for reading: " + os_error(errno));
      check_fifo_fd(read_fd.get(), where + "/d2v");
      lock_or_refuse(read_fd.get(), where, "visual side");
    }

    impl->read_fd = std::move(read_fd);
    impl->write_fd = std::move(write_fd);
    return std::unique_ptr<FifoChannel>(new FifoChannel(std::move(impl)));
  }
}

std::error_code FifoChannel::write_all(std::span<const std::byte> bytes, milliseconds timeout) {
  Impl& m = *impl_;
  if (bytes.empty()) return {};
  if (!m.write_fd) return Errc::io_error;
  std::optional<Clock::time_point> deadline;  // only computed when we have to wait
  std::size_t done = 0;
  while (done < bytes.size()) {
    // Write first: the pipe almost always has room.
    const ssize_t n = ::write(m.write_fd.get(), bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) return Errc::peer_closed;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Errc::io_error;
    if (!deadline) deadline = deadline_after(timeout);
    if (auto ec = detail::wait_ready(m.write_fd.get(), detail::Ready::write, *deadline, m.write_spin)) return ec;
  }
  return {};
}

std::error_code FifoChannel::read_exact(std::span<std::byte> out, milliseconds timeout) {
  Impl& m = *impl_;
  std::size_t done = m.read_buffer.take(out);
  if (done == out.size()) return {};
  if (!m.read_fd) return Errc::io_error;
  const int fd = m.read_fd.get();
  const auto deadline = deadline_after(timeout);
  while (done < out.size()) {
    // Wait first, read second: poll() returns at once when data is there, and when it is
    // not (the usual case in lockstep) this saves a read() that would return EAGAIN.
    if (auto ec = detail::wait_ready(fd, detail::Ready::read, deadline, m.read_spin)) return ec;
    if (m.read_spin.last_missed()) m.leave_peer_cpu();
    const std::size_t want = out.size() - done;
    ssize_t n = 0;
    if (want >= m.read_buffer.capacity()) {
      n = ::read(fd, out.data() + done, want);  // big payload: straight into place
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        m.writer_seen = true;
        continue;
      }
    } else {
      n = ::read(fd, m.read_buffer.data(), m.read_buffer.capacity());
      if (n > 0) {
        m.read_buffer.filled(static_cast<std::size_t>(n));
        m.writer_seen = true;
        done += m.read_buffer.take(out.subspan(done));
        continue;
      }
    }
    if (n == 0) {
      // A FIFO reads EOF before its writer connects too: that is not a close.
      if (m.writer_seen || m.reader_hangup()) {
        m.writer_seen = true;
        return Errc::peer_closed;
      }
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errc::io_error;
    }
  }
  return {};
}

bool FifoChannel::readable_now() {
  Impl& m = *impl_;
  if (!m.read_buffer.empty()) return true;
  if (!m.read_fd) return true;  // a read fails at once
  pollfd p{m.read_fd.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;  // ready, hung up, or poll failed: a read would not block
}

void FifoChannel::close() noexcept {
  impl_->read_fd.reset();
  impl_->write_fd.reset();
  impl_->read_buffer.clear();
}

std::string FifoChannel::describe() const { return impl_->description; }

void FifoChannel::remove_created_files() noexcept { impl_->created.remove(); }

}  // namespace cosim::wire
