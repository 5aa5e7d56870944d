#pragma once
// Shared helpers for cosim_wire_tests: canonical envelopes, allocation probe, temp dirs,
// threads that return values, setup-error checks.

#include <cosim/v1/cosim.pb.h>
#include <cosim/platform/paths.hpp>
#include <cosim/wire/channel.hpp>
#include <cosim/wire/framing.hpp>
#include <cosim/wire/interrupt.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cosim/test/allocation_probe.hpp"

namespace cosim::wire::test {

// The allocation probe is shared by every test binary (tests/support).
using ::cosim::test::AllocationProbe;

/// "Never" for a wait that should end at once: only bounds a hang, never reached when passing.
inline constexpr std::chrono::milliseconds kLong{5000};
/// Long enough for a thread to be inside its blocking call (open, read, write) before the
/// test acts on it; every such wait is checked to still be blocked, so a too-short delay
/// would fail loudly rather than pass by luck.
inline constexpr std::chrono::milliseconds kSettle{100};

/// A frame header as framing writes it ("CSIM", then the length little-endian), for
/// writing malformed frames by hand.
inline std::array<std::byte, kHeaderBytes> raw_header(std::uint32_t length) {
  std::array<std::byte, kHeaderBytes> h{};
  std::memcpy(h.data(), "CSIM", 4);
  for (int i = 0; i < 4; ++i) h[4 + i] = static_cast<std::byte>(length >> (8 * i));
  return h;
}

// ---- canonical envelopes ----

/// One envelope per body type, every field set to a non-default value so the golden bytes
/// cover every field number and wire type (values need not form a realistic session).
struct Canonical {
  std::string name;  // golden file stem, e.g. "probe_report"
  cosim::v1::Envelope envelope;
};

/// gtest prints a parameter by its name instead of its raw bytes.
inline void PrintTo(const Canonical& c, std::ostream* os) { *os << c.name; }

inline std::vector<Canonical> canonical_envelopes() {
  std::vector<Canonical> out;
  {
    cosim::v1::Envelope e;
    auto* h = e.mutable_hello();
    h->mutable_protocol()->set_major(1);
    h->mutable_protocol()->set_minor(2);
    h->set_software_version("0.1.0");
    h->set_run_id("20261122T143000Z-kinematic");
    h->set_backend("kinematic");
    h->set_model("Robotino");
    for (const char* j : {"robotino/wheel_0", "robotino/wheel_1", "robotino/wheel_2"}) h->add_joint_names(j);
    for (const char* p : {"robotino/probe_top", "robotino/probe_front"}) h->add_probe_names(p);
    h->set_fps(30.0);
    h->set_mode(cosim::v1::MODE_LOCKSTEP);
    h->set_sim_start_s(0.5);
    h->set_sim_end_s(50.0);
    h->set_frame_count(1500);
    out.push_back({"hello", e});
  }
  {
    cosim::v1::Envelope e;
    auto* w = e.mutable_welcome();
    w->mutable_protocol()->set_major(1);
    w->mutable_protocol()->set_minor(1);
    w->set_scene("robotino_rose");
    for (const char* p : {"robotino/probe_top", "robotino/probe_front"}) w->add_probe_names(p);
    w->mutable_joint_mapping()->set_matched(3);
    w->mutable_joint_mapping()->add_missing_in_scene("robotino/arm_0");
    w->mutable_joint_mapping()->add_missing_in_hello("robotino/gripper");
    w->set_software_version("0.1.0");
    w->set_peer_kind("recorder");
    out.push_back({"welcome", e});
  }
  {
    cosim::v1::Envelope e;
    auto* f = e.mutable_frame();
    f->set_seq(42);
    f->set_sim_time_s(1.4);
    for (const double v : {0.125, -2.5, 3.141592653589793}) f->add_joint_values(v);
    f->set_sent_ns(123'456'789'012'345);
    out.push_back({"frame", e});
  }
  {
    cosim::v1::Envelope e;
    auto* r = e.mutable_probe_report();
    r->set_frame_seq(42);
    r->set_sim_time_s(1.4);
    for (const double v : {1.0, 2.0, 0.5, -0.3, 0.0, 0.2}) r->add_positions_m(v);
    r->set_received_ns(123'456'789'020'000);
    r->set_reported_ns(123'456'789'031'000);
    r->set_frames_skipped(2);
    out.push_back({"probe_report", e});
  }
  {
    cosim::v1::Envelope e;
    e.mutable_bye()->set_reason("end of run");
    e.mutable_bye()->set_frames_handled(1500);
    out.push_back({"bye", e});
  }
  {
    cosim::v1::Envelope e;
    e.mutable_error()->set_code(cosim::v1::ERROR_CODE_JOINT_MISMATCH);
    e.mutable_error()->set_message("joints in Hello but not in the scene: robotino/arm_0");
    out.push_back({"error", e});
  }
  return out;
}

/// A Frame envelope with `joints` joint values.
inline cosim::v1::Envelope make_frame(std::uint64_t seq, int joints) {
  cosim::v1::Envelope e;
  auto* f = e.mutable_frame();
  f->set_seq(seq);
  f->set_sim_time_s(static_cast<double>(seq) / 30.0);
  for (int i = 0; i < joints; ++i) f->add_joint_values(0.001 * static_cast<double>(seq) + i);
  f->set_sent_ns(static_cast<std::int64_t>(seq) * 1000);
  return e;
}

/// A ProbeReport envelope with `probes` positions (3 doubles each).
inline cosim::v1::Envelope make_report(std::uint64_t seq, int probes) {
  cosim::v1::Envelope e;
  auto* r = e.mutable_probe_report();
  r->set_frame_seq(seq);
  r->set_sim_time_s(static_cast<double>(seq) / 30.0);
  for (int i = 0; i < 3 * probes; ++i) r->add_positions_m(0.5 * i);
  r->set_received_ns(1);
  r->set_reported_ns(2);
  return e;
}

/// encode() into a fresh vector of bytes.
inline std::vector<std::byte> encoded(const cosim::v1::Envelope& env) {
  std::string s;
  encode(env, s);
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

/// Payload part of a frame.
inline std::span<const std::byte> payload_of(const std::vector<std::byte>& frame) {
  return std::span(frame).subspan(kHeaderBytes);
}

inline std::vector<std::byte> bytes_of(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (const unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// ---- environment ----

/// A fresh private directory under the temp dir, removed with its contents at scope end.
class TempDir {
 public:
  TempDir() : path_(platform::make_private_temp_dir("cosim-wire-test-")) {}
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Clears the process-wide stop flag at scope end, so a failing test cannot leak it.
struct StopGuard {
  StopGuard() { reset_stop(); }
  ~StopGuard() { reset_stop(); }
};

// ---- threads and timing ----

using Clock = std::chrono::steady_clock;

/// Milliseconds since `since`.
inline double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

/// Runs `f` in a thread; get() joins and rethrows. The destructor joins too.
template <class T>
class Async {
 public:
  template <class F>
  explicit Async(F f)
      : thread_([this, f] {
          try {
            value_ = f();
          } catch (...) {
            error_ = std::current_exception();
          }
          done_.store(true);
        }) {}
  ~Async() {
    if (thread_.joinable()) thread_.join();
  }
  Async(const Async&) = delete;
  Async& operator=(const Async&) = delete;
  /// True once `f` has returned or thrown.
  bool done() const { return done_.load(); }
  T get() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return std::move(value_);
  }

 private:
  T value_{};
  std::exception_ptr error_;
  std::atomic<bool> done_{false};
  std::thread thread_;  // last: starts once the other members exist
};

/// Expects `f` to throw ChannelSetupError of `kind` whose one-line message contains every `parts`.
template <class F>
void expect_setup_error(F f, ChannelSetupError::Kind kind, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no ChannelSetupError thrown";
  } catch (const ChannelSetupError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string what = e.what();
    for (const auto& part : parts) EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

}  // namespace cosim::wire::test
