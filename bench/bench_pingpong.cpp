// The raw anchors for the channel round trips: two processes ping-ponging messages of a
// Frame's and a ProbeReport's size over two plain blocking FIFOs, or (--tcp 1) over one
// blocking loopback TCP connection with TCP_NODELAY (no poll, no spin, no protobuf). Prints
// p50/p99/max of the round trip and the CPU time of both processes.
//   cosim_bench_pingpong [--frame-bytes N] [--report-bytes M] [--count K] [--tcp 0|1]

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

bool read_all(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

double cpu_s(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

// Two connected blocking loopback TCP sockets with TCP_NODELAY: {listener side, connector side}.
void tcp_pair(int& a, int& b) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    die("listen");
  }
  b = ::socket(AF_INET, SOCK_STREAM, 0);
  if (b < 0 || ::connect(b, reinterpret_cast<sockaddr*>(&addr), len) != 0) die("connect");
  a = ::accept(listener, nullptr, nullptr);
  if (a < 0) die("accept");
  ::close(listener);
  const int one = 1;
  ::setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t frame_bytes = 200, report_bytes = 100, count = 20000, tcp = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const auto value = static_cast<std::size_t>(std::strtoull(argv[i + 1], nullptr, 10));
    if (key == "--frame-bytes") frame_bytes = value;
    else if (key == "--report-bytes") report_bytes = value;
    else if (key == "--count") count = value;
    else if (key == "--tcp") tcp = value;
    else {
      std::fprintf(stderr, "usage: %s [--frame-bytes N] [--report-bytes M] [--count K] [--tcp 0|1]\n", argv[0]);
      return 2;
    }
  }
  char dir_template[] = "/tmp/cosim-pingpong.XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (dir == nullptr) die("mkdtemp");
  const std::string ping = std::string(dir) + "/ping", pong = std::string(dir) + "/pong";
  if (::mkfifo(ping.c_str(), 0600) != 0 || ::mkfifo(pong.c_str(), 0600) != 0) die("mkfifo");
  int parent_end = -1, child_end = -1;  // --tcp: one duplex connection instead of the FIFOs
  if (tcp != 0) tcp_pair(parent_end, child_end);

  const std::size_t warm = 1000;
  const pid_t child = ::fork();
  if (child < 0) die("fork");
  if (child == 0) {  // the "visual side": reads a frame, answers a report
    if (tcp != 0) ::close(parent_end);
    const int in = tcp != 0 ? child_end : ::open(ping.c_str(), O_RDONLY);
    const int out = tcp != 0 ? child_end : ::open(pong.c_str(), O_WRONLY);
    if (in < 0 || out < 0) die("open");
    std::vector<char> frame(frame_bytes), report(report_bytes, 'r');
    for (std::size_t i = 0; i < warm + count; ++i) {
      if (!read_all(in, frame.data(), frame.size()) || !write_all(out, report.data(), report.size())) _exit(1);
    }
    _exit(0);
  }
  if (tcp != 0) ::close(child_end);
  const int out = tcp != 0 ? parent_end : ::open(ping.c_str(), O_WRONLY);
  const int in = tcp != 0 ? parent_end : ::open(pong.c_str(), O_RDONLY);
  if (in < 0 || out < 0) die("open");
  std::vector<char> frame(frame_bytes, 'f'), report(report_bytes);
  std::vector<double> rtt_us;
  rtt_us.reserve(count);
  for (std::size_t i = 0; i < warm + count; ++i) {
    const auto t0 = Clock::now();
    if (!write_all(out, frame.data(), frame.size()) || !read_all(in, report.data(), report.size())) die("ping-pong");
    if (i >= warm) rtt_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  rusage self{}, children{};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  ::unlink(ping.c_str());
  ::unlink(pong.c_str());
  ::rmdir(dir);
  std::sort(rtt_us.begin(), rtt_us.end());
  const auto at = [&](double q) { return rtt_us[static_cast<std::size_t>(q * static_cast<double>(rtt_us.size() - 1))]; };
  std::printf("raw blocking %s ping-pong %zu/%zu bytes: rtt_us p50 %.1f  p99 %.1f  max %.1f  (round trips %zu); "
              "CPU %.2f s per 10000 round trips\n",
              tcp != 0 ? "TCP" : "FIFO", frame_bytes, report_bytes, at(0.5), at(0.99), rtt_us.back(), rtt_us.size(),
              (cpu_s(self) + cpu_s(children)) * 10000.0 / static_cast<double>(warm + count));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
