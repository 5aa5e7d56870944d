// A viewer on another machine, as near as one machine gets: the dynamics in one network
// namespace, the recorder in another, joined by a veth pair, over tcp: with the token given
// in COSIM_TCP_TOKEN as a remote user gives it (read from the token file the dynamics names:
// its stderr is not a terminal here, so it does not show the token). Needs root (network
// namespaces); skipped with the reason otherwise.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cosim/platform/paths.hpp"
#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Runs `ip ARGS...`; true on exit 0.
bool ip(const std::filesystem::path& ip_exe, std::vector<std::string> args, const std::filesystem::path& log) {
  Process p(ip_exe, std::move(args), log);
  return p.wait(seconds(10)).value_or(-1) == 0;
}

// Two namespaces "a" and "b" with a veth pair between them: a = 10.231.0.1, b = 10.231.0.2.
class TwoHosts {
 public:
  TwoHosts(std::filesystem::path ip_exe, const std::filesystem::path& log)
      : ip_(std::move(ip_exe)), log_(log), tag_(std::to_string(::getpid() % 100000)) {
    a_ = "cosim-a-" + tag_;
    b_ = "cosim-b-" + tag_;
    const std::string va = "cva" + tag_, vb = "cvb" + tag_;  // <= 15 characters (IFNAMSIZ)
    ok_ = run({"netns", "add", a_}) && run({"netns", "add", b_}) &&
          run({"link", "add", va, "netns", a_, "type", "veth", "peer", "name", vb, "netns", b_}) &&
          run({"-n", a_, "addr", "add", "10.231.0.1/30", "dev", va}) &&
          run({"-n", b_, "addr", "add", "10.231.0.2/30", "dev", vb}) && run({"-n", a_, "link", "set", va, "up"}) &&
          run({"-n", b_, "link", "set", vb, "up"}) && run({"-n", a_, "link", "set", "lo", "up"}) &&
          run({"-n", b_, "link", "set", "lo", "up"});
  }
  ~TwoHosts() {  // deleting a namespace deletes its end of the pair, and so the pair
    run({"netns", "del", a_});
    run({"netns", "del", b_});
  }
  bool ok() const { return ok_; }
  const std::string& a() const { return a_; }
  const std::string& b() const { return b_; }

 private:
  bool run(std::vector<std::string> args) { return ip(ip_, std::move(args), log_ / ("ip-" + std::to_string(step_++))); }
  std::filesystem::path ip_, log_;
  std::string tag_, a_, b_;
  int step_ = 0;
  bool ok_ = false;
};

TEST_F(LoopTest, TcpJoinsADynamicsAndARecorderInTwoNetworkNamespaces) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make network namespaces (run the suite as root to include it)";
  const auto ip_exe = platform::find_program("ip");
  if (!ip_exe) GTEST_SKIP() << "no 'ip' program (iproute2) on PATH";
  TwoHosts hosts(*ip_exe, tmp_.path());
  if (!hosts.ok()) GTEST_SKIP() << "this machine refuses network namespaces or veth pairs (a container without them?)";

  const auto port_number = static_cast<std::uint16_t>(20000 + ::getpid() % 10000);
  const std::string port = std::to_string(port_number);
  const std::string listen = "tcp:0.0.0.0:" + port, remote = "tcp:10.231.0.1:" + port;
  // A failing test kills the dynamics (SIGKILL): its token file must not outlive the test.
  struct RemoveAtEnd {
    std::filesystem::path file;
    ~RemoveAtEnd() {
      std::error_code ignored;
      std::filesystem::remove(file, ignored);
    }
  } token_file{protocol::tcp_token_file("0.0.0.0", port_number)};
  Process dynamics(*ip_exe,
                   {"netns", "exec", hosts.a(), (kBinDir / "cosim-dynamics").string(), "--backend", "kinematic",
                    "--channel", listen, "--out", run_dir().string(), "--open-timeout", "20", "--progress", "never",
                    "--fps", "20", "--duration", "5"},
                   tmp_.path() / "dynamics");
  // The token as a remote user gets it: from the file the dynamics names on its stderr.
  std::string token;
  for (const auto t0 = std::chrono::steady_clock::now(); token.empty() && std::chrono::steady_clock::now() - t0 < seconds(20);) {
    const std::string err = dynamics.err();
    if (err.find("cosim-dynamics: session token in " + token_file.file.string()) != std::string::npos) {
      token = read_file(token_file.file).substr(0, 64);
    } else {
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  ASSERT_EQ(token.size(), 64u) << dynamics.err();
  EXPECT_EQ(dynamics.err().find(token), std::string::npos) << "the token stays off a stderr that is not a terminal";
  Process recorder(*ip_exe,
                   {"netns", "exec", hosts.b(), "env", "COSIM_TCP_TOKEN=" + token, (kBinDir / "cosim-recorder").string(),
                    "--channel", remote, "--open-timeout", "20"},
                   tmp_.path() / "recorder");
  ASSERT_EQ(finish(recorder, "cosim-recorder"), 0) << recorder.err();
  ASSERT_EQ(finish(dynamics, "cosim-dynamics"), 0) << dynamics.err();
  EXPECT_NE(dynamics.err().find("reachable from other machines"), std::string::npos) << dynamics.err();
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<double>("summary.reports_received"), 100.0);
  EXPECT_EQ(json.get<std::string>("status"), "ok");
  EXPECT_EQ(read_file(run_dir() / "dynamics.log").find(token), std::string::npos) << "the token stays out of the log";
}

}  // namespace
}  // namespace cosim::test
