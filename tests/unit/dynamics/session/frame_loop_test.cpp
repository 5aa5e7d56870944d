// The frame loop over an in-memory channel, with the real visual-side session (the one
// cosim-recorder uses) as the peer in a thread: the modes, the run record, and a peer that
// fails at its Nth operation (fault injection on its end of the channel).
#include "cosim/dynamics/session/frame_loop.hpp"

#include "cosim/platform/paths.hpp"

#include <exception>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/visual/client_session.hpp"
#include "cosim/wire/mem_channel.hpp"
#include "cosim/wire/testing/faulty_channel.hpp"

namespace cosim::dynamics::session {
using registry::BackendEntry;
using registry::find_backend;

namespace {

using std::chrono::milliseconds;

std::filesystem::path fresh_dir() {
  return platform::make_private_temp_dir("cosim-frame-loop-");
}

std::size_t line_count(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

/// The visual side: connects, accepts the scene, reports probes from the scene kinematics.
struct Peer {
  std::exception_ptr error;
  std::uint64_t frames = 0;
  std::uint64_t skipped = 0;

  void run(std::unique_ptr<wire::Channel> channel, const scene::SceneModel& scene) {
    util::EventLog log("test-peer", {}, false);
    visual::ClientOptions options;
    options.open_timeout = milliseconds(5000);
    options.frame_timeout = milliseconds(5000);
    visual::ClientSession session(options, log, nullptr);
    try {
      session.connect(std::move(channel));
      session.accept(scene);
      std::vector<Eigen::Isometry3d> X_WF(scene.frames().size());
      std::vector<Eigen::Vector3d> p_all(scene.probes().size());
      std::vector<Eigen::Vector3d> p(session.reported_probes().size());
      while (session.next_frame()) {
        scene.world_transforms(session.q_scene(), X_WF);
        scene.probe_positions(X_WF, p_all);
        for (std::size_t i = 0; i < p.size(); ++i) p[i] = p_all[static_cast<std::size_t>(session.reported_probes()[i])];
        session.report(p);
      }
    } catch (...) {
      error = std::current_exception();
    }
    frames = session.frames_received();
    skipped = session.frames_skipped();
  }
};

class FrameLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = Peer{};
    const BackendEntry& entry = find_backend("kinematic");
    params_ = std::make_unique<Params>(Params::resolve(entry.name, entry.param_specs(), nullptr, {}));
    backend_ = entry.make(*params_, 0.0);
    scene_.emplace(scene::SceneModel::load(scene::find_default_scene(entry.default_scene)));
    kinematics_.emplace(*scene_, backend_->joint_names(), std::vector<std::string>{}, "robotino");
    folder_ = run::create_run_folder(fresh_dir() / "run");
    record_ = std::make_unique<RunRecord>(folder_, kinematics_->joint_columns(backend_->joint_names()),
                                          kinematics_->probe_names(), backend_->output_names());
    log_ = std::make_unique<util::EventLog>("test", folder_.event_log(), false);
  }
  void TearDown() override {
    // Close the run's files first: Windows does not delete files that are still open.
    log_.reset();
    record_.reset();
    std::filesystem::remove_all(folder_.dir.parent_path());
  }

  /// Runs `seconds` of the kinematic backend at 20 fps against a peer whose end of the
  /// channel injects `faults`. Returns the dynamics' exception, if any.
  std::exception_ptr run(v1::Mode mode, double seconds, wire::testing::FaultPlan faults = {}) {
    settings_.fps = 20;
    settings_.duration_s = seconds;
    settings_.frame_count = static_cast<std::uint64_t>(seconds * 20 + 1e-9);
    settings_.mode = mode;
    settings_.rate = 4.0;
    settings_.report_timeout = milliseconds(5000);
    comparator_.emplace(kinematics_->probe_names().size(), settings_.frame_count);
    auto [dynamics_end, visual_end] = wire::make_mem_channel_pair();
    std::thread peer_thread([&, end = wire::testing::with_faults(std::move(visual_end), faults)]() mutable {
      peer_.run(std::move(end), *scene_);
    });
    std::exception_ptr error;
    try {
      ServerSession session(std::move(dynamics_end), &record_->frames_log(), milliseconds(5000), milliseconds(5000));
      SessionPlan plan;
      plan.run_id = "test";
      plan.backend = backend_->name();
      plan.model = backend_->model_name();
      plan.joint_names = backend_->joint_names();
      plan.probe_names = kinematics_->probe_names();
      plan.fps = settings_.fps;
      plan.mode = mode;
      plan.frame_count = settings_.frame_count;
      session.handshake(plan);
      FrameLoop loop(*backend_, *kinematics_, *record_, *comparator_, &session, settings_, *log_);
      loop.run();
      loop.finish();
    } catch (...) {
      error = std::current_exception();
    }  // the session (and its end of the channel) is gone here: a waiting peer sees the close
    peer_thread.join();
    record_->flush();
    return error;
  }

  std::unique_ptr<Params> params_;
  std::unique_ptr<Backend> backend_;
  std::optional<scene::SceneModel> scene_;
  std::optional<ProbeKinematics> kinematics_;
  std::optional<ProbeComparator> comparator_;
  run::RunFolder folder_;
  std::unique_ptr<RunRecord> record_;
  std::unique_ptr<util::EventLog> log_;
  LoopSettings settings_;
  Peer peer_;
};

TEST_F(FrameLoopTest, LockstepReportsEveryFrameWithoutDelayAndTheModelsAgree) {
  ASSERT_EQ(run(v1::MODE_LOCKSTEP, 2.0), nullptr);
  ASSERT_EQ(peer_.error, nullptr);
  const ComparisonSummary s = comparator_->summary();
  EXPECT_EQ(s.reports, 40u);
  EXPECT_EQ(peer_.frames, 40u);
  EXPECT_EQ(s.delay_frames.max, 0.0);
  // The same kinematics on both sides, with the joint values as sent (doubles on the wire):
  // equal to rounding.
  EXPECT_LE(s.diff_same_time_m.max, 1e-12);
  // 2 s at the 0.02 s output step, plus t = 0; a header line each.
  EXPECT_EQ(line_count(folder_.dynamics_csv()), 1u + 101u);
  EXPECT_EQ(line_count(folder_.probes_csv()), 1u + 40u);
}

TEST_F(FrameLoopTest, FreeAndRealtimeCountDelaysFromFramesActuallySent) {
  for (const auto mode : {v1::MODE_FREE, v1::MODE_REALTIME}) {
    SetUp();
    ASSERT_EQ(run(mode, 1.0), nullptr) << mode;
    ASSERT_EQ(peer_.error, nullptr);
    const ComparisonSummary s = comparator_->summary();
    EXPECT_GE(s.reports, 1u);
    EXPECT_LE(s.reports + peer_.skipped, 20u);
    EXPECT_LE(s.diff_same_time_m.max, 1e-12);
    if (mode == v1::MODE_REALTIME) {
      // 50 ms of sim per frame at rate 4: 12.5 ms between frames, far more than a report
      // needs over memory, so each report arrives before the next frame leaves.
      EXPECT_EQ(s.delay_frames.p50, 0.0);
    }
    TearDown();
  }
}

TEST_F(FrameLoopTest, APeerFailingMidRunEndsTheRunWithAPeerErrorAndKeepsTheRows) {
  // The peer's 10th write (Welcome, then reports) fails and it gives up: the dynamics waits
  // for report 9 in vain and learns the peer is gone.
  const auto error = run(v1::MODE_LOCKSTEP, 2.0, {.fail_on_write = 10});
  ASSERT_NE(error, nullptr);
  EXPECT_THROW(std::rethrow_exception(error), util::PeerError);
  EXPECT_NE(peer_.error, nullptr);
  EXPECT_EQ(comparator_->reports(), 8u);
  EXPECT_EQ(line_count(folder_.probes_csv()), 1u + 8u) << "the reports before the failure are kept";
  EXPECT_GT(line_count(folder_.dynamics_csv()), 1u);
}

TEST_F(FrameLoopTest, ACorruptedReportIsAPeerError) {
  const auto error = run(v1::MODE_LOCKSTEP, 1.0, {.corrupt_on_write = 3});
  ASSERT_NE(error, nullptr);
  EXPECT_THROW(std::rethrow_exception(error), util::PeerError);
  EXPECT_EQ(comparator_->reports(), 1u);
}

}  // namespace
}  // namespace cosim::dynamics::session
