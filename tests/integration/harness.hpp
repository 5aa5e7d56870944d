#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "cosim/platform/paths.hpp"
#include "cosim/protocol/channel_spec.hpp"
#include "cosim/test/process.hpp"
#include "cosim/wire/shm_channel.hpp"

namespace cosim::test {

inline const std::filesystem::path kBinDir = COSIM_BIN_DIR;
inline const std::filesystem::path kScenesDir = COSIM_SCENES_DIR;

/// True if `what` occurs in `text` (a program's output, a file's contents).
inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

/// The channel kinds two processes can meet on in this build (every available kind but
/// the in-process mem:), for suites parameterised over channels.
inline std::vector<std::string> process_channel_kinds() {
  std::vector<std::string> kinds;
  for (const auto& kind : protocol::channel_kinds()) {
    if (kind.available() && kind.name != "mem") kinds.emplace_back(kind.name);
  }
  return kinds;
}

/// A fresh run folder and channel per test (a FIFO folder unless the test names another
/// kind), and launchers for the real executables.
class LoopTest : public ::testing::Test {
 protected:
  LoopTest() : LoopTest("fifo") {}
  explicit LoopTest(const std::string& kind)
      : tmp_(::testing::UnitTest::GetInstance()->current_test_info()->name()), kind_(kind) {
    for (const auto& k : protocol::channel_kinds()) {
      if (k.name == kind) channel_ = kind + ":" + k.scratch_address(tmp_.path(), "fifo");
    }
  }
  // A test that kills the dynamics with SIGKILL leaves its token file or segment (nothing
  // can run then): not in the system's folders after the test.
  ~LoopTest() override {
    std::error_code ignored;
    for (const auto& file : channel_files()) {
      if (!file.string().starts_with(tmp_.path().string())) std::filesystem::remove(file, ignored);
    }
  }

  std::filesystem::path run_dir() const { return tmp_.path() / "run"; }
  std::filesystem::path fifo_dir() const { return tmp_.path() / "fifo"; }
  /// The --channel value both sides get: "fifo:<tmp>/fifo", "tcp:127.0.0.1:PORT", "shm:NAME".
  std::string channel() const { return channel_; }
  const std::string& channel_kind() const { return kind_; }

  /// Opens one end of channel() in this process: a hand-made peer for the real other side.
  std::unique_ptr<wire::Channel> open_peer(protocol::ChannelRole role, std::chrono::milliseconds timeout) const {
    return protocol::open_channel(protocol::parse_channel_spec(channel_), role, timeout);
  }

  /// What a live session of channel() keeps in the file system and must remove at its end:
  /// the FIFOs, the tcp: token file (docs/protocol.md §1), the shm: segment.
  std::vector<std::filesystem::path> channel_files() const {
    const std::string address = channel_.substr(channel_.find(':') + 1);
    if (kind_ == "fifo") return {fifo_dir() / "d2v", fifo_dir() / "v2d"};
    if (kind_ == "tcp") {
      const auto colon = address.rfind(':');
      const auto port = static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1)));
      std::string host = address.substr(0, colon);
      if (host.starts_with('[')) host = host.substr(1, host.size() - 2);
      return {protocol::tcp_token_file(host, port)};
    }
    if (kind_ == "shm") return {wire::ShmChannel::segment_path(address)};
    return {};
  }
  /// Expects every file of channel_files() gone: the session cleaned up after itself.
  void expect_channel_removed() const {
    for (const auto& file : channel_files()) EXPECT_FALSE(std::filesystem::exists(file)) << file << " left behind";
  }

  std::unique_ptr<Process> start_dynamics(std::vector<std::string> extra) {
    // The kinematic backend unless the test names one: it is exact, so tests can compare with the rose.
    const bool names_backend = std::find(extra.begin(), extra.end(), "--backend") != extra.end();
    std::vector<std::string> args{"--channel", channel(), "--out", run_dir().string(), "--open-timeout", "20",
                                  "--progress", "never"};
    if (!names_backend) args.insert(args.begin(), {"--backend", "kinematic"});
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-dynamics", args, tmp_.path() / "dynamics");
  }
  std::unique_ptr<Process> start_recorder(std::vector<std::string> extra) {
    std::vector<std::string> args{"--channel", channel(), "--out", run_dir().string(), "--open-timeout", "20"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(kBinDir / "cosim-recorder", args, tmp_.path() / "recorder");
  }
  /// Waits for a process and returns its exit code; fails the test (with its stderr) on timeout.
  // Whether this build's cosim-dynamics has `backend` (--list-backends names it), for suites of
  // an optional backend (mujoco: not in every build).
  bool dynamics_has_backend(const std::string& backend) {
    Process list(kBinDir / "cosim-dynamics", {"--list-backends"}, tmp_.path() / "list");
    EXPECT_EQ(finish(list, "cosim-dynamics --list-backends", 10), 0) << list.err();
    return list.out().starts_with(backend + " - ") || contains(list.out(), "\n" + backend + " - ");
  }

  static int finish(Process& p, const char* who, int timeout_s = 120) {
    const auto code = p.wait(std::chrono::seconds(timeout_s));
    if (!code) {
      ADD_FAILURE() << who << " still running after " << timeout_s << " s; stderr:\n" << p.err();
      p.kill(SIGKILL);
      return -1;
    }
    return *code;
  }

  TempDir tmp_;

 private:
  std::string kind_;
  std::string channel_;
};

/// LoopTest over every channel kind of process_channel_kinds(): TEST_P(AnyChannel, ...),
/// instantiated once per test program with COSIM_INSTANTIATE_ANY_CHANNEL().
class AnyChannel : public LoopTest, public ::testing::WithParamInterface<std::string> {
 protected:
  AnyChannel() : LoopTest(GetParam()) {}
};

/// Instantiates a fixture derived from AnyChannel over every process channel kind, once per
/// test program: COSIM_INSTANTIATE_OVER_CHANNELS(AnyChannel).
#define COSIM_INSTANTIATE_OVER_CHANNELS(Fixture)                                                        \
  INSTANTIATE_TEST_SUITE_P(Channels, Fixture, ::testing::ValuesIn(::cosim::test::process_channel_kinds()), \
                           [](const ::testing::TestParamInfo<std::string>& info) { return info.param; })

/// A URDF robot "pkgbot" in `dir`, its one revolute joint "turn" (pkgbot/turn), whose base
/// link's mesh is "package://parts/cube.stl": found only with `dir`/packages in the package
/// path. Returns the URDF file.
inline std::filesystem::path write_package_urdf(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "packages" / "parts");
  std::ofstream(dir / "packages" / "parts" / "cube.stl")
      << "solid cube\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 0.1 0 0\nvertex 0 0.1 0\n"
         "endloop\nendfacet\nendsolid cube\n";
  const auto urdf = dir / "pkgbot.urdf";
  std::ofstream(urdf) << R"(<robot name="pkgbot">
  <link name="base"><visual><geometry><mesh filename="package://parts/cube.stl"/></geometry></visual></link>
  <link name="arm"><visual><geometry><box size="0.5 0.05 0.05"/></geometry></visual></link>
  <joint name="turn" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>
</robot>
)";
  return urdf;
}

}  // namespace cosim::test
