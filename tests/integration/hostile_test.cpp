// Hostile peers against the real programs over real FIFOs. The test plays one side from the
// proto alone (raw envelopes and raw bytes, none of our session classes) and scripts what a
// broken or malicious peer sends; the real program on the other side must end with the
// documented exit code and one stderr line, tell its peer, and leave files that parse.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cosim/test/run_json.hpp"
#include "cosim/util/csv_reader.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/fifo_channel.hpp"
#include "cosim/wire/framing.hpp"
#include "cosim/wire/message_stream.hpp"
#include "harness.hpp"

namespace cosim::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

std::vector<std::string> robotino_joints() {
  std::vector<std::string> joints;
  for (const char* j : {"x", "y", "phi", "axle1", "axle2", "axle3"}) joints.push_back(std::string("Robotino/") + j);
  for (int w = 1; w <= 3; ++w) {
    for (int r = 1; r <= 6; ++r) joints.push_back("Robotino/Wheel_" + std::to_string(w) + "/roller" + std::to_string(r));
  }
  return joints;
}

v1::Envelope good_hello(std::uint32_t frames = 3) {
  v1::Envelope e;
  auto& h = *e.mutable_hello();
  h.mutable_protocol()->set_major(1);
  h.mutable_protocol()->set_minor(1);
  h.set_run_id("hostile");
  h.set_backend("hostile");
  h.set_model("Robotino");
  for (const auto& j : robotino_joints()) h.add_joint_names(j);
  h.set_fps(20);
  h.set_mode(v1::MODE_LOCKSTEP);
  h.set_sim_end_s(frames / 20.0);
  h.set_frame_count(frames);
  return e;
}

v1::Envelope good_frame(std::uint64_t seq) {
  v1::Envelope e;
  e.mutable_frame()->set_seq(seq);
  e.mutable_frame()->set_sim_time_s(static_cast<double>(seq) / 20.0);
  for (std::size_t i = 0; i < robotino_joints().size(); ++i) e.mutable_frame()->add_joint_values(0.01 * static_cast<double>(seq));
  return e;
}

std::string framed(const v1::Envelope& e) {
  std::string out;
  wire::encode(e, out);
  return out;
}

/// What the test sends, step by step: envelopes (framed), raw bytes, waits for the peer.
struct Step {
  enum Kind { send, raw, expect_one, close, pause } kind;
  v1::Envelope envelope{};
  std::string bytes{};
  int pause_ms = 0;
};
Step send(v1::Envelope e) { return {Step::send, std::move(e)}; }
Step raw(std::string b) { return {Step::raw, {}, std::move(b)}; }
Step receive_one() { return {Step::expect_one}; }  // read one message from the peer (Welcome, report)
Step close_now() { return {Step::close}; }

struct Case {
  std::string name;
  std::vector<Step> steps;
  int exit_code;
  std::string in_error;  // must appear in the one stderr line
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

void play(wire::Channel& channel, const std::vector<Step>& steps) {
  wire::MessageStream stream(channel);
  for (const Step& s : steps) {
    switch (s.kind) {
      case Step::send: (void)stream.send(s.envelope, seconds(5)); break;  // the peer may be gone: fine
      case Step::raw: {
        const auto* b = reinterpret_cast<const std::byte*>(s.bytes.data());
        (void)channel.write_all(std::span<const std::byte>(b, s.bytes.size()), seconds(5));
        break;
      }
      case Step::expect_one: {
        v1::Envelope in;
        (void)stream.receive(in, seconds(10));
        break;
      }
      case Step::close: channel.close(); return;
      case Step::pause: std::this_thread::sleep_for(milliseconds(s.pause_ms)); break;
    }
  }
}

std::string header(const char magic[4], std::uint32_t length) {
  std::string h(magic, 4);
  for (int i = 0; i < 4; ++i) h += static_cast<char>((length >> (8 * i)) & 0xff);
  return h;
}

// ---- the test plays the dynamics; the real cosim-recorder is the victim ----

class HostileDynamics : public LoopTest, public ::testing::WithParamInterface<Case> {};

TEST_P(HostileDynamics, RecorderEndsWithOneLineAndTheDocumentedCode) {
  const Case& c = GetParam();
  auto recorder = start_recorder({"--frame-timeout", "2"});
  wire::FifoOptions options;
  options.dir = fifo_dir();
  options.open_timeout = seconds(20);
  auto channel = wire::FifoChannel::listen(options);
  play(*channel, c.steps);
  const int code = finish(*recorder, "cosim-recorder", 30);
  channel.reset();
  EXPECT_EQ(code, c.exit_code) << recorder->err();
  const std::string err = recorder->err();
  EXPECT_EQ(lines_of(err), c.exit_code == 0 ? 0u : 1u) << err;
  EXPECT_NE(err.find(c.in_error), std::string::npos) << "expected '" << c.in_error << "' in: " << err;
  EXPECT_LT(err.size(), 2000u) << "a peer's words are capped";
  // The recording of what crossed the wire still reads to its last whole record.
  wire::CosimLogReader reader(run_dir() / "recorder.cosimlog");
  wire::CosimLogReader::Record record;
  while (reader.next(record)) {
  }
}

std::vector<Case> hostile_dynamics_cases() {
  std::vector<Case> cases;
  const auto hello_with = [](const std::function<void(v1::Hello&)>& spoil) {
    v1::Envelope e = good_hello();
    spoil(*e.mutable_hello());
    return e;
  };
  const auto frame_with = [](std::uint64_t seq, const std::function<void(v1::Frame&)>& spoil) {
    v1::Envelope e = good_frame(seq);
    spoil(*e.mutable_frame());
    return e;
  };
  const int peer = util::kExitPeerFailure;
  // Hellos that cannot describe a run.
  cases.push_back({"HelloFpsNan", {send(hello_with([](auto& h) { h.set_fps(std::nan("")); }))}, peer, "fps"});
  cases.push_back({"HelloFpsNegative", {send(hello_with([](auto& h) { h.set_fps(-1); }))}, peer, "fps"});
  cases.push_back({"HelloFpsInf", {send(hello_with([](auto& h) { h.set_fps(INFINITY); }))}, peer, "fps"});
  cases.push_back({"HelloNoFrames", {send(hello_with([](auto& h) { h.set_frame_count(0); }))}, peer, "0 frames"});
  cases.push_back({"HelloMode99", {send(hello_with([](auto& h) { h.set_mode(static_cast<v1::Mode>(99)); }))}, peer, "mode 99"});
  cases.push_back({"HelloJointTwice", {send(hello_with([](auto& h) { h.add_joint_names("Robotino/x"); }))}, peer, "twice"});
  cases.push_back({"HelloSimEndNan", {send(hello_with([](auto& h) { h.set_sim_end_s(std::nan("")); }))}, peer, "sim time"});
  cases.push_back({"HelloMajor2", {send(hello_with([](auto& h) { h.mutable_protocol()->set_major(2); }))},
                   util::kExitVersionMismatch, "protocol"});
  cases.push_back({"HelloJointMissing", {send(hello_with([](auto& h) { h.mutable_joint_names()->RemoveLast(); }))},
                   util::kExitBadInput, "Robotino/Wheel_3/roller6"});
  cases.push_back({"HelloUnknownProbe", {send(hello_with([](auto& h) { h.add_probe_names("Robotino/nowhere"); }))},
                   util::kExitBadInput, "Robotino/nowhere"});
  // Messages in the wrong state.
  cases.push_back({"FrameBeforeHello", {send(good_frame(1))}, peer, "expected Hello"});
  cases.push_back({"WelcomeFromDynamics", {send([] { v1::Envelope e; e.mutable_welcome(); return e; }())}, peer, "Welcome"});
  cases.push_back({"ReportFromDynamics", {send(good_hello()), receive_one(),
                                          send([] { v1::Envelope e; e.mutable_probe_report()->set_frame_seq(1); return e; }())},
                   peer, "ProbeReport"});
  cases.push_back({"SecondHello", {send(good_hello()), receive_one(), send(good_hello())}, peer, "Hello"});
  // Frames that break the run.
  const auto after_hello = [](std::vector<Step> then) {
    std::vector<Step> steps{send(good_hello()), receive_one()};
    steps.insert(steps.end(), then.begin(), then.end());
    return steps;
  };
  cases.push_back({"FrameNan", after_hello({send(frame_with(1, [](auto& f) { f.set_joint_values(3, std::nan("")); }))}), peer, "is nan"});
  cases.push_back({"FrameInf", after_hello({send(frame_with(1, [](auto& f) { f.set_joint_values(0, -INFINITY); }))}), peer, "is -inf"});
  cases.push_back({"FrameTimeNan", after_hello({send(frame_with(1, [](auto& f) { f.set_sim_time_s(std::nan("")); }))}), peer, "time must move forward"});
  cases.push_back({"FrameTimeBack", after_hello({send(good_frame(1)), receive_one(),
                                                 send(frame_with(2, [](auto& f) { f.set_sim_time_s(0.01); }))}),
                   peer, "time must move forward"});
  cases.push_back({"FrameGap", after_hello({send(good_frame(2))}), peer, "without gaps"});
  cases.push_back({"FrameZero", after_hello({send(good_frame(0))}), peer, "without gaps"});
  cases.push_back({"FrameTooManyValues", after_hello({send(frame_with(1, [](auto& f) { f.add_joint_values(0); }))}), peer, "25 joint values"});
  cases.push_back({"FrameTooFewValues", after_hello({send(frame_with(1, [](auto& f) { f.mutable_joint_values()->RemoveLast(); }))}), peer, "23 joint values"});
  cases.push_back({"FramesPastTheCount", after_hello({send(good_frame(1)), receive_one(), send(good_frame(2)), receive_one(),
                                                      send(good_frame(3)), receive_one(), send(good_frame(4))}),
                   peer, "past the 3 frames"});
  cases.push_back({"EarlyBye", after_hello({send(good_frame(1)), receive_one(),
                                            send([] { v1::Envelope e; e.mutable_bye()->set_reason("bored"); return e; }())}),
                   peer, "ended the session at frame 1 of 3"});
  // The peer's words: forged lines, control characters, huge, invalid UTF-8.
  cases.push_back({"ErrorWithNewlines", after_hello({send([] {
                     v1::Envelope e;
                     e.mutable_error()->set_code(v1::ERROR_CODE_INTERNAL);
                     e.mutable_error()->set_message("boom\ncosim-recorder: forged line\x1b[31m\r");
                     return e;
                   }())}),
                   peer, "boom\\ncosim-recorder: forged line\\x1B[31m\\r"});
  cases.push_back({"ErrorHuge", after_hello({send([] {
                     v1::Envelope e;
                     e.mutable_error()->set_code(v1::ERROR_CODE_INTERNAL);
                     e.mutable_error()->set_message(std::string(900 * 1024, 'A'));
                     return e;
                   }())}),
                   peer, "more bytes)"});
  cases.push_back({"ErrorInvalidUtf8", after_hello({raw([] {
                     // Error{code=4, message="\xff\xfe"} encoded by hand: protobuf refuses to build it.
                     const std::string error = std::string("\x08\x04\x12\x02\xff\xfe", 6);
                     const std::string envelope = std::string("\x32", 1) + static_cast<char>(error.size()) + error;  // field 6
                     return header("CSIM", static_cast<std::uint32_t>(envelope.size())) + envelope;
                   }())}),
                   peer, "malformed"});
  // Broken framing: every cut of a header, cuts of a payload, bad magic, oversize, garbage.
  const std::string frame1 = framed(good_frame(1));
  for (std::size_t cut = 1; cut < wire::kHeaderBytes; ++cut) {
    cases.push_back({"HeaderCutAt" + std::to_string(cut), after_hello({raw(frame1.substr(0, cut)), close_now()}), peer, "closed"});
  }
  for (const std::size_t cut : {std::size_t{8}, std::size_t{9}, frame1.size() / 2, frame1.size() - 1}) {
    cases.push_back({"PayloadCutAt" + std::to_string(cut), after_hello({raw(frame1.substr(0, cut)), close_now()}), peer, "closed"});
  }
  cases.push_back({"BadMagic", after_hello({raw(header("XSIM", 16) + std::string(16, '\0'))}), peer, "magic"});
  cases.push_back({"Oversize", after_hello({raw(header("CSIM", 0xFFFFFFFFu))}), peer, "above the configured cap"});
  cases.push_back({"GarbagePayload", after_hello({raw(header("CSIM", 12) + std::string(12, '\xff'))}), peer, "malformed"});
  cases.push_back({"EmptyEnvelope", after_hello({raw(header("CSIM", 0))}), peer, "envelope has no body"});
  // Silence and disappearance.
  cases.push_back({"SilentAfterHello", after_hello({{Step::pause, {}, {}, 3000}}), peer, "no frame from the dynamics within"});
  cases.push_back({"GoneAfterHello", after_hello({close_now()}), peer, "closed"});
  cases.push_back({"GoneMidRun", after_hello({send(good_frame(1)), receive_one(), close_now()}), peer, "closed"});
  // A good session with hostile strings: still exit 0, and the recorder's log has no forged line.
  cases.push_back({"WeirdRunIdIsHarmless", {send(hello_with([](auto& h) { h.set_run_id("r\nforged: error\x07" + std::string(5000, 'x')); })),
                                            receive_one(), send(good_frame(1)), receive_one(), send(good_frame(2)), receive_one(),
                                            send(good_frame(3)), receive_one(),
                                            send([] { v1::Envelope e; e.mutable_bye()->set_reason("end of run"); return e; }()),
                                            receive_one()},
                   util::kExitOk, ""});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileDynamics, ::testing::ValuesIn(hostile_dynamics_cases()),
                         [](const auto& info) { return info.param.name; });

// The dynamics is told why, not only left to time out: a Hello the recorder refuses is
// answered with an Error (cosim-visual: the render suite's AHelloItRefusesIsAnsweredWithAnError).
TEST_F(LoopTest, AHelloTheRecorderRefusesIsAnsweredWithAnError) {
  auto recorder = start_recorder({});
  auto channel = open_peer(protocol::ChannelRole::dynamics, seconds(20));
  wire::MessageStream stream(*channel);
  v1::Envelope hello = good_hello();
  hello.mutable_hello()->set_frame_count(0);
  ASSERT_FALSE(stream.send(hello, seconds(5)));
  v1::Envelope answer;
  ASSERT_FALSE(stream.receive(answer, seconds(10)));
  ASSERT_TRUE(answer.has_error()) << answer.ShortDebugString();
  EXPECT_EQ(answer.error().code(), v1::ERROR_CODE_PROTOCOL);
  EXPECT_NE(answer.error().message().find("0 frames"), std::string::npos) << answer.error().message();
  EXPECT_EQ(finish(*recorder, "cosim-recorder"), util::kExitPeerFailure) << recorder->err();
}

// ---- the test plays the visual side; the real cosim-dynamics is the victim ----

class HostileVisual : public LoopTest, public ::testing::WithParamInterface<Case> {};

/// A ProbeReport for frame `seq` with `probes` positions at the origin.
v1::Envelope report(std::uint64_t seq, int coordinates = 3) {
  v1::Envelope e;
  e.mutable_probe_report()->set_frame_seq(seq);
  for (int i = 0; i < coordinates; ++i) e.mutable_probe_report()->add_positions_m(0.0);
  return e;
}

TEST_P(HostileVisual, DynamicsEndsWithOneLineTheDocumentedCodeAndAFolderThatParses) {
  const Case& c = GetParam();
  auto dynamics = start_dynamics({"--duration", "0.15", "--fps", "20", "--report-timeout", "3", "--probe",
                                  "Robotino/chassis_bottom"});
  wire::FifoOptions options;
  options.dir = fifo_dir();
  options.open_timeout = seconds(20);
  std::unique_ptr<wire::Channel> channel = wire::FifoChannel::connect(options);
  play(*channel, c.steps);
  const int code = finish(*dynamics, "cosim-dynamics", 30);
  channel.reset();
  EXPECT_EQ(code, c.exit_code) << dynamics->err();
  const std::string err = dynamics->err();
  // The error line, and nothing else on stderr.
  EXPECT_EQ(lines_of(err), c.exit_code == 0 ? 0u : 1u) << err;
  EXPECT_NE(err.find(c.in_error), std::string::npos) << "expected '" << c.in_error << "' in: " << err;
  EXPECT_LT(err.size(), 2000u);
  // The run folder parses: run.json says how it ended, the tables end on whole rows.
  const auto json = read_run_json(run_dir());
  EXPECT_EQ(json.get<std::string>("status"), c.exit_code == 0 ? "ok" : "failed");
  EXPECT_NE(json.get<std::string>("error").find(c.in_error), std::string::npos);
  EXPECT_EQ(util::CsvTable::read(run_dir() / "dynamics.csv").torn_line(), 0u);
  EXPECT_EQ(util::CsvTable::read(run_dir() / "probes.csv").torn_line(), 0u);
}

std::vector<Case> hostile_visual_cases() {
  std::vector<Case> cases;
  const int peer = util::kExitPeerFailure;
  const auto welcome = [](const std::function<void(v1::Welcome&)>& spoil = {}) {
    v1::Envelope e;
    auto& w = *e.mutable_welcome();
    w.mutable_protocol()->set_major(1);
    w.mutable_protocol()->set_minor(1);
    w.set_scene("Robotino");
    w.add_probe_names("Robotino/chassis_bottom");
    w.set_peer_kind("recorder");
    if (spoil) spoil(w);
    return e;
  };
  const auto after_welcome = [&](std::vector<Step> then) {
    std::vector<Step> steps{receive_one(), send(welcome())};
    steps.insert(steps.end(), then.begin(), then.end());
    return steps;
  };
  // Welcomes that do not fit.
  cases.push_back({"WelcomeMajor2", {receive_one(), send(welcome([](auto& w) { w.mutable_protocol()->set_major(2); }))},
                   util::kExitVersionMismatch, "protocol"});
  cases.push_back({"WelcomeOtherProbes", {receive_one(), send(welcome([](auto& w) { w.set_probe_names(0, "Robotino/x"); }))},
                   peer, "reports probes"});
  cases.push_back({"WelcomeNoProbes", {receive_one(), send(welcome([](auto& w) { w.clear_probe_names(); }))}, peer, "reports probes"});
  cases.push_back({"FrameInsteadOfWelcome", {receive_one(), send(good_frame(1))}, peer, "expected Welcome"});
  // Reports that cannot be trusted.
  cases.push_back({"ReportNan", after_welcome({receive_one(), send([] { auto r = report(1); r.mutable_probe_report()->set_positions_m(1, std::nan("")); return r; }())}),
                   peer, "is nan"});
  cases.push_back({"ReportInf", after_welcome({receive_one(), send([] { auto r = report(1); r.mutable_probe_report()->set_positions_m(2, INFINITY); return r; }())}),
                   peer, "is inf"});
  cases.push_back({"ReportForAFrameNotSent", after_welcome({receive_one(), send(report(2))}), peer, "out of order"});
  cases.push_back({"ReportForFrameZero", after_welcome({receive_one(), send(report(0))}), peer, "out of order"});
  cases.push_back({"ReportTwice", after_welcome({receive_one(), send(report(1)), receive_one(), send(report(1))}), peer, "out of order"});
  cases.push_back({"ReportTooShort", after_welcome({receive_one(), send(report(1, 2))}), peer, "2 coordinates"});
  cases.push_back({"ReportTooLong", after_welcome({receive_one(), send(report(1, 6))}), peer, "6 coordinates"});
  cases.push_back({"HelloFromVisual", after_welcome({receive_one(), send(good_hello())}), peer, "unexpected Hello"});
  cases.push_back({"FrameFromVisual", after_welcome({receive_one(), send(good_frame(1))}), peer, "unexpected Frame"});
  cases.push_back({"EarlyBye", after_welcome({receive_one(), send([] { v1::Envelope e; e.mutable_bye()->set_reason("bored"); return e; }())}),
                   peer, "ended the session at frame 1 of 3"});
  cases.push_back({"ByeBeforeTheLastReport",
                   after_welcome({receive_one(), send(report(1)), receive_one(), send(report(2)), receive_one(),
                                  send([] { v1::Envelope e; e.mutable_bye()->set_reason("done?"); return e; }())}),
                   peer, "ended the session at frame 3 of 3 (last report 2)"});
  cases.push_back({"SilentMidRun", after_welcome({receive_one(), {Step::pause, {}, {}, 4000}}), peer, "no ProbeReport for frame 1"});
  cases.push_back({"GoneMidRun", after_welcome({receive_one(), close_now()}), peer, "closed"});
  cases.push_back({"ErrorWithNewlines", after_welcome({receive_one(), send([] {
                     v1::Envelope e;
                     e.mutable_error()->set_code(v1::ERROR_CODE_INTERNAL);
                     e.mutable_error()->set_message("bad\nforged line\x00tail");
                     return e;
                   }())}),
                   peer, "bad\\nforged line"});
  const std::string report1 = framed(report(1));
  for (std::size_t cut = 1; cut < wire::kHeaderBytes; ++cut) {
    cases.push_back({"HeaderCutAt" + std::to_string(cut), after_welcome({receive_one(), raw(report1.substr(0, cut)), close_now()}),
                     peer, "closed"});
  }
  cases.push_back({"PayloadCut", after_welcome({receive_one(), raw(report1.substr(0, report1.size() - 1)), close_now()}), peer, "closed"});
  cases.push_back({"BadMagic", after_welcome({receive_one(), raw(header("XSIM", 4) + "abcd")}), peer, "magic"});
  cases.push_back({"Oversize", after_welcome({receive_one(), raw(header("CSIM", 0x7FFFFFFFu))}), peer, "above the configured cap"});
  cases.push_back({"InvalidUtf8InWelcome", {receive_one(), raw([] {
                     // Welcome{scene="\xff"} by hand.
                     const std::string welcome_body = std::string("\x12\x01\xff", 3);
                     const std::string envelope = std::string("\x12", 1) + static_cast<char>(welcome_body.size()) + welcome_body;
                     return header("CSIM", static_cast<std::uint32_t>(envelope.size())) + envelope;
                   }())},
                   peer, "malformed"});
  // A huge but finite position is no error: the run ends ok and the summary shows it.
  cases.push_back({"HugePositionsStayVisible",
                   after_welcome({receive_one(), send([] { auto r = report(1); r.mutable_probe_report()->set_positions_m(0, 1e308); return r; }()),
                                  receive_one(), send(report(2)), receive_one(), send(report(3)), receive_one(),
                                  send([] { v1::Envelope e; e.mutable_bye()->set_reason("end of run"); return e; }())}),
                   util::kExitOk, ""});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileVisual, ::testing::ValuesIn(hostile_visual_cases()),
                         [](const auto& info) { return info.param.name; });

TEST_F(LoopTest, HugeProbePositionsAreInTheSummaryNotHidden) {
  auto dynamics = start_dynamics({"--duration", "0.05", "--fps", "20", "--probe", "Robotino/chassis_bottom"});
  wire::FifoOptions options;
  options.dir = fifo_dir();
  options.open_timeout = seconds(20);
  auto channel = wire::FifoChannel::connect(options);
  wire::MessageStream stream(*channel);
  v1::Envelope in;
  ASSERT_FALSE(stream.receive(in, seconds(10)));
  v1::Envelope w;
  w.mutable_welcome()->mutable_protocol()->set_major(1);
  w.mutable_welcome()->add_probe_names("Robotino/chassis_bottom");
  ASSERT_FALSE(stream.send(w, seconds(5)));
  ASSERT_FALSE(stream.receive(in, seconds(10)));  // frame 1
  v1::Envelope r = report(1);
  r.mutable_probe_report()->set_positions_m(0, 1e308);
  ASSERT_FALSE(stream.send(r, seconds(5)));
  ASSERT_FALSE(stream.receive(in, seconds(10)));  // Bye
  v1::Envelope bye;
  bye.mutable_bye()->set_reason("end of run");
  (void)stream.send(bye, seconds(5));
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitOk) << dynamics->err();
  const auto json = read_run_json(run_dir());
  EXPECT_GE(json.get<double>("summary.diff_same_time_m.max"), 1e307) << "not null, not dropped";
}

}  // namespace
}  // namespace cosim::test
