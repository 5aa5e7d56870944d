// TCP channel (tcp_channel.hpp): set-up on Boost.Asio's asynchronous operations (timeouts and
// Ctrl-C in slices), the data path on the non-blocking socket with detail::wait_ready.

#include "deadline.hpp"
#include "setup_fail.hpp"
#include "read_buffer.hpp"
#include "path_registry.hpp"
#include "ready_wait.hpp"

#include <cosim/platform/output_file.hpp>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/tcp_channel.hpp>

// Boost 1.74's Asio with GCC 12 in C++20 mode needs <utility> first.
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace cosim::wire {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = detail::Clock;
using detail::deadline_after;
using detail::seconds_text;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;
using Bytes4 = std::array<char, 4>;

// Socket buffers, per direction and side, fixed (Linux doubles the value and then stops
// auto-tuning): memory in flight stays bounded, so a write timeout means the peer is not
// reading, as with a FIFO; and 256 KiB is more than a 1 Gb/s LAN holds in 2 ms.
constexpr int kSocketBufferBytes = 256 * 1024;
constexpr std::size_t kTokenBytes = TcpChannel::kTokenHexDigits / 2;
constexpr Bytes4 kRequestMagic{'C', 'S', 'T', 'K'};
constexpr Bytes4 kAcceptMagic{'C', 'S', 'O', 'K'};
constexpr Bytes4 kRefuseMagic{'C', 'S', 'N', 'O'};
constexpr std::size_t kRequestBytes = 4 + kTokenBytes;
constexpr std::size_t kAnswerBytes = 5;
enum Answer : unsigned char { kAccepted = 0, kWrongToken = 1, kBusy = 2 };
// An accepted peer has this long to present its token: a viewer sends it at once, so only
// a stranger (a port scanner, a browser) takes longer, and it must not hold up the real one.
constexpr milliseconds kTokenWait{2000};
// Accepted peers whose requests the dynamics waits for at once; one more drops the oldest.
// Strangers that say nothing (six reopened as they were dropped kept the viewer out when
// peers were taken one at a time) hold places, not the door: a viewer's request comes with
// its connection and is read as soon as it arrives.
constexpr std::size_t kMaxPendingPeers = 16;
// Connections the kernel completes for us before we accept them (we accept at once).
constexpr int kListenBacklog = 64;
// A refused request is answered after a delay that doubles with each refusal (up to the
// maximum) and starts again after a calm: a flood is slowed to a few answers a second (it
// was ~6 600), a mistyped token is answered at once.
constexpr milliseconds kFirstRefusalDelay{50};
constexpr milliseconds kMaxRefusalDelay{1000};
constexpr milliseconds kRefusalCalm{10'000};
// Lines naming a refused peer, per window; the others are counted and summed up in one line
// per reason when the window ends. Anyone who reaches the port can make refusals: a line
// each was ~550 KB/s of log, and a stderr pipe nobody reads stalls the dynamics at 64 KiB.
constexpr int kRefusalLinesPerWindow = 3;
constexpr milliseconds kRefusalWindow{10'000};
// Pause between connection attempts while no dynamics listens yet.
constexpr milliseconds kRetryPause{50};

using detail::fail;

std::string endpoint_text(const tcp::endpoint& ep) {
  const auto address = ep.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(ep.port());
}

// An address as it names a token file: IPv6 without brackets, an IPv4-mapped one as IPv4 (a
// dual-stack socket sees IPv4 peers so), so both sides name the same endpoint alike.
std::string address_text(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

std::string spec_text(const std::string& host, std::uint16_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return "tcp:" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

void tell(const TcpOptions& options, NoticeLevel level, std::string_view line) {
  if (options.notice) options.notice(level, line);
}

std::array<unsigned char, kTokenBytes> token_bytes(std::string_view hex) {
  std::array<unsigned char, kTokenBytes> bytes{};
  const auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (std::size_t i = 0; i < kTokenBytes; ++i) {
    bytes[i] = static_cast<unsigned char>(digit(hex[2 * i]) * 16 + digit(hex[2 * i + 1]));
  }
  return bytes;
}

// Compares all bytes whatever differs first: the time taken says nothing about the token.
bool same_token(const unsigned char* a, const unsigned char* b) {
  unsigned char diff = 0;
  for (std::size_t i = 0; i < kTokenBytes; ++i) diff = static_cast<unsigned char>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

enum class Waited { done, timeout, interrupted };

// Runs `io` until `done` is set by a handler, the deadline passes or a stop is requested,
// in slices of at most kStopPollSlice.
Waited run_until(asio::io_context& io, const bool& done, Clock::time_point deadline) {
  while (!done) {
    if (stop_requested()) return Waited::interrupted;
    if (Clock::now() >= deadline) return Waited::timeout;
    io.restart();
    io.run_one_until(detail::slice_end(deadline));
  }
  return Waited::done;
}

// After run_until() gave up: cancels what `cancel` names and runs the handlers it aborts,
// so no handler outlives the locals it refers to.
template <class Cancel>
void abandon(asio::io_context& io, const bool& done, Cancel&& cancel) {
  boost::system::error_code ignored;
  cancel(ignored);
  while (!done) {
    io.restart();
    if (io.run_one() == 0) break;
  }
}

// Reads exactly `out.size()` bytes from `socket` by `deadline`.
Waited read_until(asio::io_context& io, tcp::socket& socket, asio::mutable_buffer out, Clock::time_point deadline,
                  boost::system::error_code& error) {
  bool done = false;
  asio::async_read(socket, out, [&](const boost::system::error_code& ec, std::size_t) {
    error = ec;
    done = true;
  });
  const Waited waited = run_until(io, done, deadline);
  if (waited != Waited::done) abandon(io, done, [&](boost::system::error_code& ec) { socket.cancel(ec); });
  return waited;
}

Waited write_until(asio::io_context& io, tcp::socket& socket, asio::const_buffer bytes, Clock::time_point deadline,
                   boost::system::error_code& error) {
  bool done = false;
  asio::async_write(socket, bytes, [&](const boost::system::error_code& ec, std::size_t) {
    error = ec;
    done = true;
  });
  const Waited waited = run_until(io, done, deadline);
  if (waited != Waited::done) abandon(io, done, [&](boost::system::error_code& ec) { socket.cancel(ec); });
  return waited;
}

std::array<char, kAnswerBytes> answer(Answer a) {
  const Bytes4& magic = a == kAccepted ? kAcceptMagic : kRefuseMagic;
  return {magic[0], magic[1], magic[2], magic[3], static_cast<char>(a)};
}

bool peer_gone(const boost::system::error_code& ec) {
  return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == asio::error::shut_down;
}

// The token file: created fresh with mode 0600 (a stale file of ours is replaced; anything
// else there is refused), so only this user can read the token.
void write_token_file(const std::filesystem::path& path, const std::string& token, const std::string& where) {
  const std::string line = token + "\n";
#ifdef _WIN32
  // %TEMP% is the user's own folder on Windows.
  std::FILE* file = platform::open_file(path, "wb");
  if (file == nullptr) fail(Kind::io, where + ": cannot write the token file " + path.string());
  const bool ok = std::fwrite(line.data(), 1, line.size(), file) == line.size();
  if (std::fclose(file) != 0 || !ok) fail(Kind::io, where + ": cannot write the token file " + path.string());
#else
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::fchmod(fd, 0600);  // whatever the umask
      const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
      if (::close(fd) != 0 || !ok) fail(Kind::io, where + ": cannot write the token file " + path.string());
      return;
    }
    if (errno != EEXIST || attempt > 0) {
      fail(Kind::io, where + ": cannot create the token file " + path.string() + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
      fail(Kind::bad_input, where + ": " + path.string() +
                                " exists and is not a file of this user; refusing it (remove it or use another port)");
    }
    ::unlink(path.c_str());  // a stale token of a run of ours that was killed
  }
#endif
}

// The token the listening dynamics wrote, from the file of the endpoint this socket reached
// (TcpOptions::token_file): this user's private file, one line of hex digits.
std::string read_token_file(const TcpOptions& options, const tcp::endpoint& peer, const std::string& where) {
  const std::string no_token = where + ": no session token for " + endpoint_text(peer) +
                               ": set COSIM_TCP_TOKEN to the token cosim-dynamics printed";
  if (!options.token_file) fail(Kind::bad_input, no_token);
  const std::filesystem::path exact = options.token_file(address_text(peer.address()), peer.port());
  std::filesystem::path path = exact;
#ifdef __linux__
  // A dynamics on 0.0.0.0 or :: holds the port on every address of that family: Linux lets
  // nobody else listen on one of them meanwhile, so its token may go to this peer.
  const auto missing = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::symlink_status(p, ec).type() == std::filesystem::file_type::not_found;
  };
  if (missing(exact)) {
    const bool v4 = peer.address().is_v4() || peer.address().to_v6().is_v4_mapped();
    const std::filesystem::path wildcard = options.token_file(v4 ? "0.0.0.0" : "::", peer.port());
    if (!missing(wildcard)) path = wildcard;
  }
#endif
  const std::string on_its_machine =
      " (a dynamics on this machine listening on exactly that address writes it to " + exact.string() + ")";
#ifdef _WIN32
  std::FILE* file = platform::open_file(path, "rb");
  if (file == nullptr) fail(Kind::bad_input, no_token + on_its_machine);
#else
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) fail(Kind::bad_input, no_token + on_its_machine);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    ::close(fd);
    fail(Kind::bad_input, where + ": " + path.string() + " is not a private file of this user; refusing its token");
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    fail(Kind::io, where + ": cannot read " + path.string());
  }
#endif
  char text[TcpChannel::kTokenHexDigits + 2] = {};
  const std::size_t n = std::fread(text, 1, sizeof text, file);
  std::fclose(file);
  std::string token(text, std::min(n, TcpChannel::kTokenHexDigits));
  if (!is_session_token(token) || (n > TcpChannel::kTokenHexDigits && text[TcpChannel::kTokenHexDigits] != '\n')) {
    fail(Kind::bad_input, where + ": " + path.string() + " does not hold a session token");
  }
  return token;
}

void remove_file(const std::filesystem::path& path) noexcept {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

// Lines about refused peers: the first kRefusalLinesPerWindow of a window name their peer,
// the others are only counted; when the window ends, one line per reason sums it up.
class RefusalLog {
 public:
  enum Reason { kSilent, kWrongToken, kNotAViewer, kBusy, kReasons };

  RefusalLog(NoticeSink notice, std::string where) : notice_(std::move(notice)), where_(std::move(where)) {}

  // Tells `line` or counts it. True when this refusal was the first left out of the window:
  // then the caller asks for sum_up() at window_end().
  bool refused(Reason reason, const std::string& line) {
    sum_up_if_due();
    if (!window_open_) {
      const auto now = Clock::now();
      window_open_ = true;
      window_start_ = now;
    }
    ++total_;
    ++in_window_[reason];
    if (lines_in_window_ < kRefusalLinesPerWindow) {
      ++lines_in_window_;
      if (notice_) notice_(NoticeLevel::warning, line);
      return false;
    }
    ++left_out_[reason];
    return ++left_out_total_ == 1;
  }

  Clock::time_point window_end() const { return window_start_ + kRefusalWindow; }

  void sum_up_if_due() {
    if (window_open_ && Clock::now() >= window_end()) sum_up();
  }

  // One line per reason with refusals left out of the window; the next refusal opens another.
  void sum_up() {
    if (!window_open_) return;
    const auto span = std::chrono::duration_cast<milliseconds>(Clock::now() - window_start_);
    const std::string last = " in the last " + seconds_text(milliseconds((span.count() + 99) / 100 * 100));
    for (int r = 0; r < kReasons; ++r) {
      if (left_out_[r] == 0 || !notice_) continue;
      const std::string n = std::to_string(in_window_[r]);
      switch (r) {
        case kSilent: notice_(NoticeLevel::warning, "dropped " + n + " connections without a session token" + last); break;
        case kWrongToken: notice_(NoticeLevel::warning, "refused " + n + " peers with a wrong session token" + last); break;
        case kNotAViewer: notice_(NoticeLevel::warning, "refused " + n + " peers that are not cosim viewers" + last); break;
        default: notice_(NoticeLevel::warning, "refused " + n + " further viewers" + last + ": " + where_ + " is in use");
      }
    }
    window_open_ = false;
    lines_in_window_ = left_out_total_ = 0;
    in_window_.fill(0);
    left_out_.fill(0);
  }

  // Refusals so far, told or not.
  int total() const { return total_; }

 private:
  NoticeSink notice_;
  std::string where_;
  bool window_open_ = false;
  Clock::time_point window_start_{};
  int lines_in_window_ = 0, left_out_total_ = 0, total_ = 0;
  std::array<int, kReasons> in_window_{}, left_out_{};
};

// Takes connections and judges each by its 36-byte request, many at once: each accepted peer
// waits in one of kMaxPendingPeers places for at most kTokenWait, and is judged as soon as
// its request is in. Set-up admits the peer presenting the token (admitted turns true; the
// caller answers it); while a session runs, every peer is told "busy". Refusals are answered
// after the back-off and logged through a RefusalLog.
//
// Runs on the caller's io_context and acceptor (one thread at a time); its handlers hold it,
// so it lives as long as any of them. Set-up may allocate: this is not the data path.
class Gate : public std::enable_shared_from_this<Gate> {
 public:
  struct Peer {
    explicit Peer(asio::io_context& io) : socket(io), timer(io) {}
    tcp::socket socket;
    asio::steady_timer timer;  // its token wait; once refused, its back-off and answer's deadline
    std::string who;           // address:port, for the log
    std::array<char, kRequestBytes> request{};
    std::array<char, kAnswerBytes> reply{};
    bool judged = false;   // its request is in
    bool refused = false;  // and was refused: it waits only for its answer
    bool gone = false;     // closed: a completion still queued is ignored
  };

  // `expected` empty: a session runs, every peer is busy.
  Gate(asio::io_context& io, tcp::acceptor& acceptor, std::optional<std::array<unsigned char, kTokenBytes>> expected,
       NoticeSink notice, std::string where)
      : io_(io),
        acceptor_(acceptor),
        expected_(expected),
        log_(std::move(notice), where),
        summary_timer_(io),
        retry_timer_(io),
        where_(std::move(where)) {
    pending_.reserve(kMaxPendingPeers);
  }

  void open() { accept_next(); }

  // Set-up: a peer presented the token. Further peers are told "busy" until reopen().
  bool admitted = false;

  // The admitted peer, taken out of the gate.
  std::shared_ptr<Peer> take_admitted() {
    admitted = false;
    return std::move(admitted_);
  }

  // The admitted peer was lost before its answer: admit again.
  void reopen() { busy_ = false; }

  // Drops every pending peer without an answer, stops accepting, sums up the log, and runs
  // the handlers this aborts. Not from a handler of the gate.
  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    acceptor_.cancel(ignored);
    summary_timer_.cancel();
    retry_timer_.cancel();
    while (!pending_.empty()) forget(pending_.back());
    if (admitted_) forget(admitted_);
    log_.sum_up();
    io_.restart();
    io_.poll();
  }

  int refusals() const { return log_.total(); }

 private:
  using Reason = RefusalLog::Reason;

  void accept_next() {
    auto peer = std::make_shared<Peer>(io_);
    acceptor_.async_accept(peer->socket, [self = shared_from_this(), peer](const boost::system::error_code& ec) {
      if (self->closed_ || ec == asio::error::operation_aborted) return;
      if (!ec) self->take(peer);
      if (!ec || ec == asio::error::connection_aborted) {  // a peer that gave up before we took it
        self->accept_next();
        return;
      }
      // Out of descriptors or buffers: a pause, not a spin.
      self->retry_timer_.expires_after(kRetryPause);
      self->retry_timer_.async_wait([self](const boost::system::error_code& e) {
        if (!e && !self->closed_) self->accept_next();
      });
    });
  }

  void take(const std::shared_ptr<Peer>& peer) {
    boost::system::error_code ec;
    const auto from = peer->socket.remote_endpoint(ec);
    peer->who = ec ? std::string("a peer") : endpoint_text(from);
    if (pending_.size() >= kMaxPendingPeers) make_room();
    pending_.push_back(peer);
    peer->timer.expires_after(kTokenWait);
    peer->timer.async_wait([self = shared_from_this(), peer](const boost::system::error_code& e) {
      if (e || peer->gone || peer->judged) return;
      self->drop(peer, "no session token within " + seconds_text(kTokenWait));
    });
    asio::async_read(peer->socket, asio::buffer(peer->request),
                     [self = shared_from_this(), peer](const boost::system::error_code& e, std::size_t) {
                       if (peer->gone || self->closed_) return;
                       if (e) {
                         self->drop(peer, "no session token (" + e.message() + ")");
                       } else {
                         self->judge(peer);
                       }
                     });
  }

  // The oldest refused peer (it only waits for its answer), else the oldest of all.
  void make_room() {
    const auto refused = std::find_if(pending_.begin(), pending_.end(), [](const auto& p) { return p->refused; });
    if (refused != pending_.end()) {
      forget(*refused);
    } else {
      drop(pending_.front(), "no session token yet, and " + std::to_string(kMaxPendingPeers) + " newer connections wait");
    }
  }

  void judge(const std::shared_ptr<Peer>& peer) {
    peer->judged = true;
    peer->timer.cancel();
    const bool magic_ok = std::equal(kRequestMagic.begin(), kRequestMagic.end(), peer->request.begin());
    if (!expected_ || busy_) {
      refuse(peer, Reason::kBusy, "refused a second viewer from " + peer->who + ": " + where_ + " is in use");
      return;
    }
    if (magic_ok && same_token(reinterpret_cast<const unsigned char*>(peer->request.data()) + 4, expected_->data())) {
      std::erase(pending_, peer);
      admitted_ = peer;
      admitted = true;
      busy_ = true;  // until the caller has answered it
      return;
    }
    refuse(peer, magic_ok ? Reason::kWrongToken : Reason::kNotAViewer,
           "refused a viewer from " + peer->who + ": " +
               (magic_ok ? "wrong session token" : "not a cosim viewer (no token request)"));
  }

  // Answers `peer` "CSNO" after the back-off, then closes it.
  void refuse(const std::shared_ptr<Peer>& peer, Reason reason, const std::string& line) {
    log_refusal(reason, line);
    peer->refused = true;
    peer->reply = answer(reason == Reason::kBusy ? kBusy : kWrongToken);
    peer->timer.expires_after(next_refusal_delay());
    peer->timer.async_wait([self = shared_from_this(), peer](const boost::system::error_code& e) {
      if (e || peer->gone || self->closed_) return;
      peer->timer.expires_after(kTokenWait);  // the answer's deadline
      peer->timer.async_wait([self, peer](const boost::system::error_code& late) {
        if (!late && !peer->gone) self->forget(peer);
      });
      asio::async_write(peer->socket, asio::buffer(peer->reply), [self, peer](const boost::system::error_code&, std::size_t) {
        if (peer->gone) return;
        boost::system::error_code ignored;
        peer->socket.shutdown(tcp::socket::shutdown_both, ignored);
        self->forget(peer);
      });
    });
  }

  milliseconds next_refusal_delay() {
    const auto now = Clock::now();
    if (now - last_refusal_ > kRefusalCalm) refusal_delay_ = kFirstRefusalDelay;
    last_refusal_ = now;
    const milliseconds delay = refusal_delay_;
    refusal_delay_ = std::min(2 * refusal_delay_, kMaxRefusalDelay);
    return delay;
  }

  // Closes `peer` without an answer and logs why.
  void drop(const std::shared_ptr<Peer>& peer, const std::string& why) {
    log_refusal(Reason::kSilent, "dropped a connection from " + peer->who + ": " + why);
    forget(peer);
  }

  // The first refusal a window leaves out asks for its summary at the window's end.
  void log_refusal(Reason reason, const std::string& line) {
    if (!log_.refused(reason, line)) return;
    summary_timer_.expires_at(log_.window_end());
    summary_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
      if (!e && !self->closed_) self->log_.sum_up_if_due();
    });
  }

  // Closes `peer` and lets it go; its handlers still queued find it gone.
  void forget(std::shared_ptr<Peer> peer) {
    peer->gone = true;
    peer->timer.cancel();
    boost::system::error_code ignored;
    peer->socket.close(ignored);
    std::erase(pending_, peer);
  }

  asio::io_context& io_;
  tcp::acceptor& acceptor_;
  std::optional<std::array<unsigned char, kTokenBytes>> expected_;
  RefusalLog log_;
  asio::steady_timer summary_timer_;
  asio::steady_timer retry_timer_;
  std::vector<std::shared_ptr<Peer>> pending_;  // in the order they were accepted
  std::shared_ptr<Peer> admitted_;
  milliseconds refusal_delay_ = kFirstRefusalDelay;
  Clock::time_point last_refusal_{};
  bool busy_ = false;
  bool closed_ = false;
  std::string where_;
};

}  // namespace

std::string make_session_token() {
  // std::random_device reads the OS's random source (getrandom on Linux, rand_s on MinGW).
  std::random_device source;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(TcpChannel::kTokenHexDigits);
  while (token.size() < TcpChannel::kTokenHexDigits) {
    const auto word = static_cast<std::uint32_t>(source());
    for (int shift = 0; shift < 32 && token.size() < TcpChannel::kTokenHexDigits; shift += 4) {
      token.push_back(kHex[(word >> shift) & 0xF]);
    }
  }
  return token;
}

bool is_session_token(std::string_view token) noexcept {
  return token.size() == TcpChannel::kTokenHexDigits &&
         std::all_of(token.begin(), token.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

struct TcpChannel::Impl {
  explicit Impl(std::string d) : description(std::move(d)) {}
  ~Impl() {  // also when set-up fails: the token file goes with the session
    stop_refusing();
    remove_token_file();
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  detail::NativeHandle handle() { return static_cast<detail::NativeHandle>(socket.native_handle()); }

  // Dynamics side, once the session runs: answers every further viewer "busy", on a thread
  // of its own so the data path never looks at the listening socket.
  void start_refusing(const NoticeSink& notice) {
    gate->close();  // peers still pending at the set-up's end go without an answer
#ifndef _WIN32
    // The listening socket moves to an io_context of the thread's own. The session's socket
    // stays registered with `io`'s epoll set from the set-up, and a thread waiting there is
    // woken by every frame (measured: one epoll wake-up per round trip; tcp: p50 ~1.5x the
    // raw TCP anchor beside two CPU-bound processes). IOCP wakes only for operations it
    // started, so Windows stays on `io`.
    boost::system::error_code ec;
    const auto protocol = acceptor.local_endpoint(ec).protocol();
    if (!ec) {
      const auto listening = acceptor.release(ec);
      if (!ec) refusing_acceptor.assign(protocol, listening, ec);
      if (!ec) {
        listening_acceptor = &refusing_acceptor;
        refusing_loop = &refusing_io;
      }
    }
#endif
    refusing_loop->restart();  // set-up may have run `io` out of work, which stops it
    gate = std::make_shared<Gate>(*refusing_loop, *listening_acceptor, std::nullopt, notice, description);
    gate->open();
    refuser = std::thread([this] { refusing_loop->run(); });
  }

  void stop_refusing() noexcept {
    if (refuser.joinable()) {
      refusing_loop->stop();
      refuser.join();
    }
    if (gate) gate->close();  // drops its peers and sums up its refusals
    boost::system::error_code ignored;
    acceptor.close(ignored);
    refusing_acceptor.close(ignored);
  }

  void remove_token_file() noexcept {
    if (token_file.empty()) return;
    remove_file(token_file);
    detail::unregister_path(token_slot);
    token_file.clear();
  }

  std::string description;
  asio::io_context io;
  tcp::socket socket{io};
  tcp::acceptor acceptor{io};
  asio::io_context refusing_io;  // run by `refuser` only
  tcp::acceptor refusing_acceptor{refusing_io};
  asio::io_context* refusing_loop = &io;       // &refusing_io once the listening socket moved there
  tcp::acceptor* listening_acceptor = &acceptor;  // &refusing_acceptor, likewise
  std::shared_ptr<Gate> gate;  // dynamics side: the set-up's, then the refusing thread's
  std::thread refuser;
  std::uint16_t port = 0;
  std::filesystem::path token_file;  // dynamics side: removed with the channel
  int token_slot = -1;
  detail::ReadBuffer read_buffer;
  detail::SpinPolicy read_spin;  // one per direction: a reader and a writer thread may wait at once
  detail::SpinPolicy write_spin;
  // A read saw the peer's end: writing then succeeds once into the void (TCP answers with a
  // reset only later), so writes report peer_closed at once, as a FIFO's EPIPE would.
  std::atomic<bool> peer_ended{false};
};

// Both sides, before connecting: see kSocketBufferBytes.
template <class Socket>
void bound_buffers(Socket& socket) {
  boost::system::error_code ignored;
  socket.set_option(asio::socket_base::send_buffer_size(kSocketBufferBytes), ignored);
  socket.set_option(asio::socket_base::receive_buffer_size(kSocketBufferBytes), ignored);
}

TcpChannel::TcpChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TcpChannel::~TcpChannel() {
  close();
  impl_->remove_token_file();
}

std::unique_ptr<TcpChannel> TcpChannel::listen(const TcpOptions& options) {
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(spec_text(options.host, options.port));
  const std::string& where = impl->description;

  // The bind address: a literal, or a name of this machine ("localhost").
  boost::system::error_code ec;
  tcp::endpoint local;
  const auto literal = asio::ip::make_address(options.host, ec);
  if (!ec) {
    local = tcp::endpoint(literal, options.port);
  } else {
    tcp::resolver resolver(impl->io);
    const auto found = resolver.resolve(options.host, std::to_string(options.port),
                                        tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || found.empty()) {
      fail(Kind::bad_input, where + ": cannot resolve '" + options.host + "' to an address of this machine" +
                                (ec ? ": " + ec.message() : std::string()));
    }
    local = *found.begin();
  }

  tcp::acceptor& acceptor = impl->acceptor;
  acceptor.open(local.protocol(), ec);
  if (ec) fail(Kind::io, where + ": cannot open a socket: " + ec.message());
  bound_buffers(acceptor);  // accepted sockets inherit them
#ifndef _WIN32
  // Lets a new run take the port while the last run's connection is in TIME_WAIT. (On
  // Windows SO_REUSEADDR would let two listeners share the port: not there.)
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
#endif
  acceptor.bind(local, ec);
  if (ec == asio::error::address_in_use) {
    fail(Kind::bad_input, where + ": port " + std::to_string(local.port()) +
                              " is in use (another cosim-dynamics or another program); choose another port");
  }
  if (ec == boost::system::errc::address_not_available) {
    fail(Kind::bad_input, where + ": " + local.address().to_string() + " is not an address of this machine");
  }
  if (ec) fail(Kind::bad_input, where + ": cannot listen on " + endpoint_text(local) + ": " + ec.message());
  const tcp::endpoint bound = acceptor.local_endpoint();
  impl->port = bound.port();
  if (options.port == 0) impl->description = spec_text(options.host, impl->port);

  if (!local.address().is_loopback()) {
    tell(options, NoticeLevel::warning, where + " listens on " + endpoint_text(bound) +
                      ", reachable from other machines: only a viewer with the session token is admitted, and "
                      "frames travel unencrypted (on an untrusted network, bind 127.0.0.1 and use an SSH tunnel)");
  }

  const std::string token = make_session_token();
  const auto expected = token_bytes(token);
  // The file of the exact endpoint: a viewer aimed at another address of this port (another
  // loopback address, "localhost" as ::1) finds none there and presents nothing.
  const std::filesystem::path token_file =
      options.token_file ? options.token_file(address_text(bound.address()), impl->port) : std::filesystem::path();
  if (!token_file.empty()) {
    write_token_file(token_file, token, where);
    impl->token_file = token_file;
    impl->token_slot = detail::register_path(token_file.string().c_str(), false);
  }
  const std::string for_another_machine = "; a viewer on another machine sets COSIM_TCP_TOKEN to it";
  if (options.show_token || token_file.empty()) {
    tell(options, NoticeLevel::secret, "session token " + token +
                      (token_file.empty() ? std::string() : " (in " + token_file.string() + ", readable by you only)") +
                      for_another_machine);
  } else {
    // A file or a pipe outlives the session and others may read it: the secret stays in the file.
    tell(options, NoticeLevel::secret, "session token in " + token_file.string() +
                                           " (readable by you only; not shown here, as this is not a terminal)" +
                                           for_another_machine);
  }
  // Listen only now: a viewer that got through has the token file of this session to read.
  acceptor.listen(kListenBacklog, ec);
  if (ec) fail(Kind::io, where + ": cannot listen: " + ec.message());

  impl->gate = std::make_shared<Gate>(impl->io, acceptor, expected, options.notice, where);
  Gate& gate = *impl->gate;
  gate.open();
  for (;;) {
    const Waited waited = run_until(impl->io, gate.admitted, deadline);
    if (waited != Waited::done) {
      gate.close();
      if (waited == Waited::interrupted) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
      fail(Kind::timeout, "no viewer presented the session token on " + where + " within " +
                              seconds_text(options.open_timeout) +
                              (gate.refusals() > 0 ? " (refused " + std::to_string(gate.refusals()) + " other peers)"
                                                   : " (is the visual side running with --channel " + where + "?)"));
    }
    // The gate goes on meanwhile, telling others "busy".
    const auto peer = gate.take_admitted();
    const auto reply = answer(kAccepted);
    boost::system::error_code write_error;
    const Waited written =
        write_until(impl->io, peer->socket, asio::buffer(reply), std::min(deadline, Clock::now() + kTokenWait), write_error);
    if (written == Waited::interrupted) {
      gate.close();
      fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    }
    if (written == Waited::timeout || write_error) {
      tell(options, NoticeLevel::warning, "lost the viewer from " + peer->who + " during the token exchange: " +
                        (write_error ? write_error.message() : "no room for the answer within " + seconds_text(kTokenWait)));
      gate.reopen();
      continue;
    }
    peer->socket.set_option(tcp::no_delay(true), ec);
    peer->socket.non_blocking(true, ec);
    if (ec) fail(Kind::io, where + ": cannot make the socket non-blocking: " + ec.message());
    impl->socket = std::move(peer->socket);
    break;
  }
  impl->start_refusing(options.notice);
  return std::unique_ptr<TcpChannel>(new TcpChannel(std::move(impl)));
}

std::unique_ptr<TcpChannel> TcpChannel::connect(const TcpOptions& options) {
  const auto deadline = deadline_after(options.open_timeout);
  auto impl = std::make_unique<Impl>(spec_text(options.host, options.port));
  const std::string& where = impl->description;
  if (!options.token.empty() && !is_session_token(options.token)) {
    fail(Kind::bad_input, where + ": the session token must be " + std::to_string(kTokenHexDigits) + " hex digits");
  }
  impl->port = options.port;

  boost::system::error_code ec;
  tcp::resolver resolver(impl->io);
  const auto endpoints = resolver.resolve(options.host, std::to_string(options.port), tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    fail(Kind::bad_input, where + ": cannot resolve '" + options.host + "'" + (ec ? ": " + ec.message() : std::string()));
  }

  // Connect, retrying while nobody listens yet: the dynamics may be started after us.
  tcp::socket& socket = impl->socket;
  std::string last_error = "connection refused";
  for (bool connected = false; !connected;) {
    for (const auto& entry : endpoints) {
      bool done = false;
      boost::system::error_code connect_error;
      socket.open(entry.endpoint().protocol(), ec);
      if (ec) fail(Kind::io, where + ": cannot open a socket: " + ec.message());
      bound_buffers(socket);
      socket.async_connect(entry.endpoint(), [&](const boost::system::error_code& e) {
        connect_error = e;
        done = true;
      });
      const Waited waited = run_until(impl->io, done, deadline);
      if (waited != Waited::done) {
        abandon(impl->io, done, [&](boost::system::error_code& e) { socket.close(e); });
        if (waited == Waited::interrupted) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
        fail(Kind::timeout, "no dynamics answered on " + where + " within " + seconds_text(options.open_timeout) +
                                " (" + last_error + "; is cosim-dynamics running with --channel " + where + "?)");
      }
      if (!connect_error) {
        connected = true;
        break;
      }
      last_error = connect_error.message();
      socket.close(ec);
    }
    if (connected) break;
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    if (Clock::now() >= deadline) {
      fail(Kind::timeout, "no dynamics answered on " + where + " within " + seconds_text(options.open_timeout) + " (" +
                              last_error + "; is cosim-dynamics running with --channel " + where + "?)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(kRetryPause, deadline - Clock::now()));
  }
  socket.set_option(tcp::no_delay(true), ec);

  // The token of the dynamics we reached, not of the one the user meant: a name that resolves
  // to several addresses, or another program on the port, may have led elsewhere.
  const auto reached = socket.remote_endpoint(ec);
  if (ec) fail(Kind::io, where + ": the dynamics closed the connection during the token exchange");
  const std::string token_text = options.token.empty() ? read_token_file(options, reached, where) : options.token;
  std::array<char, kRequestBytes> request{};
  std::copy(kRequestMagic.begin(), kRequestMagic.end(), request.begin());
  const auto token = token_bytes(token_text);
  std::memcpy(request.data() + 4, token.data(), token.size());
  boost::system::error_code io_error;
  const auto exchange_failed = [&](Waited waited) {
    if (waited == Waited::interrupted) fail(Kind::interrupted, where + ": interrupted during the token exchange");
    if (waited == Waited::timeout) {
      fail(Kind::timeout, where + ": no answer to the session token within " + seconds_text(options.open_timeout));
    }
    if (peer_gone(io_error)) {
      fail(Kind::io, where + ": the dynamics closed the connection during the token exchange");
    }
    fail(Kind::io, where + ": token exchange failed: " + io_error.message());
  };
  if (const Waited w = write_until(impl->io, socket, asio::buffer(request), deadline, io_error);
      w != Waited::done || io_error) {
    exchange_failed(w);
  }
  std::array<char, kAnswerBytes> reply{};
  if (const Waited w = read_until(impl->io, socket, asio::buffer(reply), deadline, io_error);
      w != Waited::done || io_error) {
    exchange_failed(w);
  }
  if (std::equal(kRefuseMagic.begin(), kRefuseMagic.end(), reply.begin())) {
    if (reply[4] == kBusy) fail(Kind::bad_input, where + ": in use by another viewer; one session per channel");
    fail(Kind::bad_input, where + ": the dynamics refused the session token (COSIM_TCP_TOKEN or the token file " +
                              "holds another session's token?)");
  }
  if (!std::equal(kAcceptMagic.begin(), kAcceptMagic.end(), reply.begin()) || reply[4] != kAccepted) {
    fail(Kind::bad_input, where + ": the peer is not a cosim-dynamics (unexpected answer to the session token)");
  }
  socket.non_blocking(true, ec);
  if (ec) fail(Kind::io, where + ": cannot make the socket non-blocking: " + ec.message());
  return std::unique_ptr<TcpChannel>(new TcpChannel(std::move(impl)));
}

std::error_code TcpChannel::write_all(std::span<const std::byte> bytes, milliseconds timeout) {
  Impl& m = *impl_;
  if (bytes.empty()) return {};
  if (!m.socket.is_open()) return Errc::io_error;
  if (m.peer_ended.load(std::memory_order_relaxed)) return Errc::peer_closed;
  std::optional<Clock::time_point> deadline;  // only computed when we have to wait
  std::size_t done = 0;
  while (done < bytes.size()) {
    // Write first: the socket buffer almost always has room.
    boost::system::error_code ec;
    const std::size_t n = m.socket.write_some(asio::buffer(bytes.data() + done, bytes.size() - done), ec);
    done += n;
    if (!ec) continue;
    if (ec == asio::error::interrupted) continue;
    if (peer_gone(ec)) return Errc::peer_closed;
    if (ec != asio::error::would_block && ec != asio::error::try_again) return Errc::io_error;
    if (!deadline) deadline = deadline_after(timeout);
    if (auto wait_error = detail::wait_ready(m.handle(), detail::Ready::write, *deadline, m.write_spin)) {
      return wait_error;
    }
  }
  return {};
}

std::error_code TcpChannel::read_exact(std::span<std::byte> out, milliseconds timeout) {
  Impl& m = *impl_;
  std::size_t done = m.read_buffer.take(out);
  if (done == out.size()) return {};
  if (!m.socket.is_open()) return Errc::io_error;
  const auto deadline = deadline_after(timeout);
  while (done < out.size()) {
    // Wait first, read second: in lockstep the data is usually not there yet.
    if (auto ec = detail::wait_ready(m.handle(), detail::Ready::read, deadline, m.read_spin)) return ec;
    const std::size_t want = out.size() - done;
    boost::system::error_code ec;
    if (want >= m.read_buffer.capacity()) {
      done += m.socket.read_some(asio::buffer(out.data() + done, want), ec);  // big payload: straight into place
    } else {
      const std::size_t n = m.socket.read_some(asio::buffer(m.read_buffer.data(), m.read_buffer.capacity()), ec);
      m.read_buffer.filled(n);
      done += m.read_buffer.take(out.subspan(done));
    }
    if (!ec || ec == asio::error::interrupted || ec == asio::error::would_block || ec == asio::error::try_again) continue;
    if (peer_gone(ec)) {
      m.peer_ended.store(true, std::memory_order_relaxed);
      return Errc::peer_closed;
    }
    return Errc::io_error;
  }
  return {};
}

bool TcpChannel::readable_now() {
  Impl& m = *impl_;
  if (!m.read_buffer.empty()) return true;
  if (!m.socket.is_open()) return true;  // a read fails at once
  return detail::readable_now(m.handle());
}

void TcpChannel::close() noexcept {
  Impl& m = *impl_;
  m.stop_refusing();
  boost::system::error_code ignored;
  if (m.socket.is_open()) {
    m.socket.shutdown(tcp::socket::shutdown_both, ignored);  // the peer sees the end at once
    m.socket.close(ignored);
  }
  m.read_buffer.clear();
}

std::string TcpChannel::describe() const { return impl_->description; }

std::uint16_t TcpChannel::port() const noexcept { return impl_->port; }

}  // namespace cosim::wire
