// The visual side of a session against a scripted (and sometimes hostile) dynamics end over
// an in-memory channel: what it accepts, what it refuses and what it tells the dynamics.
#include "cosim/visual/client_session.hpp"

#include "cosim/platform/paths.hpp"

#include <cmath>
#include <span>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cosim/protocol/connection.hpp"
#include "cosim/protocol/version.hpp"
#include "cosim/scene/scene_builder.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/visual/replay_session.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/framing.hpp"
#include "cosim/wire/mem_channel.hpp"

namespace cosim::visual {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kWait{2000};

/// Arm/elbow (revolute), Arm/slide (prismatic), probe Arm/tip at 0.5 m along the elbow's x.
scene::SceneModel arm_scene() {
  scene::SceneBuilder b;
  b.set_name("Arm");
  b.set_root(std::filesystem::temp_directory_path());
  const int arm = b.add_instance(-1, "Arm", Eigen::Isometry3d::Identity());
  const int elbow = b.add_joint(arm, {.name = "elbow", .drive = scene::DriveType::revolute,
                                      .axis_J = Eigen::Vector3d::UnitZ(), .driven = true});
  b.add_probe(elbow, "tip", {0.5, 0, 0});
  b.add_joint(arm, {.name = "slide", .drive = scene::DriveType::prismatic, .axis_J = Eigen::Vector3d::UnitX(),
                    .driven = true});
  return std::move(b).build();
}

v1::Envelope hello(std::vector<std::string> joints, v1::Mode mode = v1::MODE_LOCKSTEP, std::uint32_t major = 0) {
  v1::Envelope e;
  auto& h = *e.mutable_hello();
  h.mutable_protocol()->set_major(major != 0 ? major : protocol::kProtocolMajor);
  h.mutable_protocol()->set_minor(protocol::kProtocolMinor);
  h.set_model("Arm");
  h.set_fps(20);
  h.set_mode(mode);
  h.set_frame_count(10);
  for (auto& j : joints) h.add_joint_names(j);
  return e;
}

v1::Envelope frame(std::uint64_t seq, std::vector<double> q) {
  v1::Envelope e;
  e.mutable_frame()->set_seq(seq);
  e.mutable_frame()->set_sim_time_s(0.05 * static_cast<double>(seq));
  for (double v : q) e.mutable_frame()->add_joint_values(v);
  return e;
}

class ClientSessionTest : public ::testing::Test {
 protected:
  ClientSessionTest() : scene_(arm_scene()), log_("test", {}, false) {
    auto [dynamics_end, visual_end] = wire::make_mem_channel_pair();
    dynamics_ = std::make_unique<protocol::Connection>(std::move(dynamics_end), wire::Direction::to_visual, nullptr);
    visual_end_ = std::move(visual_end);
    options_.open_timeout = kWait;
    options_.frame_timeout = kWait;
  }
  v1::Envelope from_visual() {
    v1::Envelope e;
    EXPECT_TRUE(dynamics_->receive(e, kWait));
    return e;
  }

  scene::SceneModel scene_;
  util::EventLog log_;
  ClientOptions options_;
  std::unique_ptr<protocol::Connection> dynamics_;
  std::unique_ptr<wire::Channel> visual_end_;
};

TEST_F(ClientSessionTest, MapsJointsInAnyOrderAndReportsTheProbes) {
  dynamics_->send(hello({"Arm/slide", "Arm/elbow"}), kWait);
  ClientSession session(options_, log_, nullptr);
  EXPECT_EQ(session.connect(std::move(visual_end_)).model(), "Arm");
  session.accept(scene_);
  const v1::Envelope welcome = from_visual();
  ASSERT_TRUE(welcome.has_welcome());
  EXPECT_EQ(welcome.welcome().scene(), "Arm");
  ASSERT_EQ(welcome.welcome().probe_names_size(), 1);  // none asked: all of the scene
  EXPECT_EQ(welcome.welcome().probe_names(0), "Arm/tip");

  dynamics_->send(frame(1, {0.25, 1.5}), kWait);  // slide, elbow in Hello order
  ASSERT_TRUE(session.next_frame());
  ASSERT_EQ(session.q_scene().size(), 2u);
  EXPECT_EQ(session.q_scene()[0], 1.5);   // scene order: elbow first
  EXPECT_EQ(session.q_scene()[1], 0.25);
  const Eigen::Vector3d p[] = {{1, 2, 3}};
  session.report(p);
  const v1::Envelope report = from_visual();
  ASSERT_TRUE(report.has_probe_report());
  EXPECT_EQ(report.probe_report().frame_seq(), 1u);
  EXPECT_EQ(report.probe_report().positions_m(2), 3.0);
}

TEST_F(ClientSessionTest, AJointMismatchIsToldToTheDynamicsWithItsCode) {
  dynamics_->send(hello({"Arm/elbow", "Arm/wrist"}), kWait);
  ClientSession session(options_, log_, nullptr);
  session.connect(std::move(visual_end_));
  try {
    session.accept(scene_);
    FAIL() << "accepted";
  } catch (const MappingError& e) {
    EXPECT_NE(std::string(e.what()).find("Arm/wrist"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Arm/slide"), std::string::npos) << e.what();
  }
  const v1::Envelope error = from_visual();
  ASSERT_TRUE(error.has_error());
  EXPECT_EQ(error.error().code(), v1::ERROR_CODE_JOINT_MISMATCH);
}

TEST_F(ClientSessionTest, AnotherMajorIsRefusedBeforeTheScene) {
  dynamics_->send(hello({"Arm/elbow", "Arm/slide"}, v1::MODE_LOCKSTEP, protocol::kProtocolMajor + 1), kWait);
  ClientSession session(options_, log_, nullptr);
  EXPECT_THROW(session.connect(std::move(visual_end_)), util::VersionMismatchError);
  const v1::Envelope error = from_visual();
  ASSERT_TRUE(error.has_error());
  EXPECT_EQ(error.error().code(), v1::ERROR_CODE_VERSION_MISMATCH);
}

TEST_F(ClientSessionTest, FreeModeTakesTheNewestFrameAndCountsTheSkipped) {
  dynamics_->send(hello({"Arm/elbow", "Arm/slide"}, v1::MODE_FREE), kWait);
  ClientSession session(options_, log_, nullptr);
  session.connect(std::move(visual_end_));
  session.accept(scene_);
  (void)from_visual();  // Welcome
  for (std::uint64_t k = 1; k <= 5; ++k) dynamics_->send(frame(k, {0.1 * k, 0}), kWait);
  ASSERT_TRUE(session.next_frame());
  EXPECT_EQ(session.seq(), 5u);
  EXPECT_EQ(session.frames_skipped(), 4u);
  EXPECT_DOUBLE_EQ(session.q_scene()[0], 0.5);
}

TEST_F(ClientSessionTest, AGapInTheFramesIsAPeerError) {
  dynamics_->send(hello({"Arm/elbow", "Arm/slide"}), kWait);
  ClientSession session(options_, log_, nullptr);
  session.connect(std::move(visual_end_));
  session.accept(scene_);
  dynamics_->send(frame(2, {0, 0}), kWait);
  EXPECT_THROW(session.next_frame(), util::PeerError);
}

TEST_F(ClientSessionTest, AFrameOfTheWrongSizeIsAPeerError) {
  dynamics_->send(hello({"Arm/elbow", "Arm/slide"}), kWait);
  ClientSession session(options_, log_, nullptr);
  session.connect(std::move(visual_end_));
  session.accept(scene_);
  dynamics_->send(frame(1, {0, 0, 0}), kWait);
  EXPECT_THROW(session.next_frame(), util::PeerError);
}

TEST_F(ClientSessionTest, ByeIsAnsweredWithTheFramesHandled) {
  v1::Envelope one_frame = hello({"Arm/elbow", "Arm/slide"});
  one_frame.mutable_hello()->set_frame_count(1);
  dynamics_->send(one_frame, kWait);
  ClientSession session(options_, log_, nullptr);
  session.connect(std::move(visual_end_));
  session.accept(scene_);
  (void)from_visual();  // Welcome
  dynamics_->send(frame(1, {0, 0}), kWait);
  ASSERT_TRUE(session.next_frame());
  session.report(std::vector<Eigen::Vector3d>{{0, 0, 0}});
  (void)from_visual();  // the report
  dynamics_->send_bye_noexcept("end of run", 1);
  EXPECT_FALSE(session.next_frame());
  const v1::Envelope bye = from_visual();
  ASSERT_TRUE(bye.has_bye());
  EXPECT_EQ(bye.bye().frames_handled(), 1u);
  EXPECT_FALSE(session.next_frame()) << "stays ended";
}

// A hostile dynamics: each bad Hello is a protocol error (exit 3) named in one line, before
// any scene is involved.
TEST_F(ClientSessionTest, RefusesHellosThatCannotDescribeARun) {
  struct Case {
    const char* what;
    void (*spoil)(v1::Hello&);
  };
  const Case cases[] = {
      {"fps", [](v1::Hello& h) { h.set_fps(std::nan("")); }},
      {"fps", [](v1::Hello& h) { h.set_fps(-20); }},
      {"0 frames", [](v1::Hello& h) { h.set_frame_count(0); }},
      {"mode 99", [](v1::Hello& h) { h.set_mode(static_cast<v1::Mode>(99)); }},
      {"twice", [](v1::Hello& h) { h.add_joint_names("Arm/elbow"); }},
      {"twice", [](v1::Hello& h) { h.add_probe_names("Arm/tip"); h.add_probe_names("Arm/tip"); }},
      {"non-finite sim time", [](v1::Hello& h) { h.set_sim_end_s(INFINITY); }},
  };
  for (const Case& c : cases) {
    auto [dynamics_end, visual_end] = wire::make_mem_channel_pair();
    protocol::Connection dynamics(std::move(dynamics_end), wire::Direction::to_visual, nullptr);
    v1::Envelope e = hello({"Arm/elbow", "Arm/slide"});
    c.spoil(*e.mutable_hello());
    dynamics.send(e, kWait);
    ClientSession session(options_, log_, nullptr);
    try {
      session.connect(std::move(visual_end));
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const util::PeerError& error) {
      EXPECT_NE(std::string(error.what()).find(c.what), std::string::npos) << error.what();
    }
  }
}

// A hostile dynamics mid-run: each bad Frame or an early Bye is a protocol error.
TEST_F(ClientSessionTest, RefusesFramesThatBreakTheRun) {
  struct Case {
    const char* what;
    std::vector<v1::Envelope> after_first;
  };
  v1::Envelope bye;
  bye.mutable_bye()->set_reason("gone\nforged line");
  const Case cases[] = {
      {"joint Arm/elbow is nan", {frame(2, {std::nan(""), 0})}},
      {"joint Arm/slide is inf", {frame(2, {0, INFINITY})}},
      {"time must move forward", {[] { auto f = frame(2, {0, 0}); f.mutable_frame()->set_sim_time_s(0.01); return f; }()}},
      {"time must move forward", {[] { auto f = frame(2, {0, 0}); f.mutable_frame()->set_sim_time_s(std::nan("")); return f; }()}},
      {"past the 2 frames", {frame(2, {0, 0}), frame(3, {0, 0})}},
      {"ended the session at frame 1 of 2 (Bye: gone\\nforged line)", {bye}},
  };
  for (const Case& c : cases) {
    auto [dynamics_end, visual_end] = wire::make_mem_channel_pair();
    protocol::Connection dynamics(std::move(dynamics_end), wire::Direction::to_visual, nullptr);
    v1::Envelope e = hello({"Arm/elbow", "Arm/slide"});
    e.mutable_hello()->set_frame_count(2);
    dynamics.send(e, kWait);
    dynamics.send(frame(1, {0, 0}), kWait);
    for (const auto& next : c.after_first) dynamics.send(next, kWait);
    ClientSession session(options_, log_, nullptr);
    session.connect(std::move(visual_end));
    session.accept(scene_);
    try {
      while (session.next_frame()) session.report(std::vector<Eigen::Vector3d>{{0, 0, 0}});
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const util::PeerError& error) {
      EXPECT_NE(std::string(error.what()).find(c.what), std::string::npos) << error.what();
    }
  }
}

TEST(ReplaySession, PlaysARecordingAgainAndComparesWithItsReports) {
  const std::filesystem::path tmpl = platform::make_private_temp_dir("cosim-replay-");
  // Removed last, once every reader has closed its file (Windows does not delete open files).
  struct RemoveAtEnd {
    std::filesystem::path dir;
    ~RemoveAtEnd() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove_at_end{tmpl};
  const std::filesystem::path log_path = tmpl / "frames.cosimlog";
  const scene::SceneModel scene = arm_scene();
  {
    wire::CosimLogWriter writer(log_path, protocol::kProtocolMajor, protocol::kProtocolMinor);
    const auto put = [&](const v1::Envelope& e, wire::Direction d) {
      std::string framed;
      wire::encode(e, framed);
      writer.append(d, 0, std::as_bytes(std::span(framed.data(), framed.size())));
    };
    put(hello({"Arm/elbow", "Arm/slide"}), wire::Direction::to_visual);
    for (std::uint64_t k = 1; k <= 3; ++k) {
      const double elbow = 0.5 * static_cast<double>(k);
      put(frame(k, {elbow, 0}), wire::Direction::to_visual);
      v1::Envelope report;
      report.mutable_probe_report()->set_frame_seq(k);
      for (double c : {0.5 * std::cos(elbow), 0.5 * std::sin(elbow), 0.0}) report.mutable_probe_report()->add_positions_m(c);
      put(report, wire::Direction::to_dynamics);
    }
    writer.flush();
  }
  util::EventLog log("test", {}, false);
  ReplaySession replay(log_path, /*as_fast_as_possible=*/true, log);
  EXPECT_EQ(replay.hello().model(), "Arm");
  replay.accept(scene);
  std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
  std::vector<Eigen::Vector3d> p_WP(scene.probes().size());
  while (replay.next_frame()) {
    scene.world_transforms(replay.q_scene(), X_WF);
    scene.probe_positions(X_WF, p_WP);
    replay.report(p_WP);
  }
  EXPECT_EQ(replay.frames_received(), 3u);
  ASSERT_TRUE(replay.replay_comparison());
  EXPECT_EQ(replay.replay_comparison()->reports_compared, 3u);
  EXPECT_LE(replay.replay_comparison()->max_difference_m, 1e-15);  // the same kinematics, same doubles

  scene::SceneBuilder other;
  other.set_name("Other");
  other.set_root(std::filesystem::temp_directory_path());
  other.add_joint(other.add_instance(-1, "Other", Eigen::Isometry3d::Identity()),
                  {.name = "j", .drive = scene::DriveType::revolute, .driven = true});
  const scene::SceneModel wrong = std::move(other).build();
  ReplaySession again(log_path, true, log);
  EXPECT_THROW(again.accept(wrong), MappingError);
}

}  // namespace
}  // namespace cosim::visual
