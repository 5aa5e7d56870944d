// cosim-visual as a program: reference images, a coupled run with video, errors and exit
// codes, a slow renderer in free mode. Runs under the X server of xvfb-run (scripts/test.sh).
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <numbers>
#include <regex>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "cosim/protocol/version.hpp"
#include "cosim/test/run_json.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/message_stream.hpp"

#include "image_compare.hpp"
#include "render_paths.hpp"

namespace cosim::test {
namespace {

// vtkImageDifference's thresholded error between a render and its reference image (0 =
// same). Per-pixel differences below VTK's threshold (a sum of 105 over the colour channels
// in the best-matching neighbour within 2 px) are ignored; the rest is summed. Reruns on
// this machine give 0; the tolerance absorbs a different llvmpipe build or rounding. The
// robot moved by one pose gives more than kPoseDifference.
constexpr double kImageTolerance = 2.0;
constexpr double kPoseDifference = 20.0;

const char* const kPoseA = "";  // every joint at zero
const char* const kPoseB =
    "Robotino/x=0.3,Robotino/y=-0.2,Robotino/phi=40deg,Robotino/axle1=30deg,Robotino/axle2=-50deg,"
    "Robotino/axle3=80deg,Robotino/Wheel_1/roller1=45deg";

/// Output of a shell command (ffprobe), and its exit status.
std::string run_command(const std::string& command, int* status = nullptr) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  const int rc = ::pclose(pipe);
  if (status != nullptr) *status = rc;
  return out;
}

class VisualTest : public LoopTest {
 protected:
  void SetUp() override {
    if (!have_display()) GTEST_FAIL() << "no X display: run the render suite under xvfb-run (scripts/test.sh does)";
  }
  std::unique_ptr<Process> start_visual(std::vector<std::string> args, const std::string& tag = "visual") {
    return std::make_unique<Process>(kBinDir / "cosim-visual", std::move(args), tmp_.path() / tag);
  }
  std::unique_ptr<Process> start_visual_session(std::vector<std::string> extra) {
    std::vector<std::string> args{"--channel", channel(), "--out", run_dir().string(), "--open-timeout", "20"};
    args.insert(args.end(), extra.begin(), extra.end());
    return start_visual(std::move(args));
  }
  /// Renders one pose of the Robotino at 640x360 and returns the PNG.
  std::filesystem::path render_pose(const std::string& joints, const std::string& name) {
    const auto png = tmp_.path() / (name + ".png");
    auto visual = start_visual({"--scene", (kScenesDir / "robotino").string(), "--joints", joints, "--screenshot",
                                png.string(), "--size", "640x360", "-q"},
                               name);
    EXPECT_EQ(finish(*visual, "cosim-visual", 60), 0) << visual->err();
    return png;
  }
  /// Compares with tests/render/baseline/<name>.png; COSIM_REGENERATE_BASELINES=1 rewrites
  /// the reference instead, and fails so that a regeneration is never silent.
  void expect_matches_baseline(const std::filesystem::path& png, const std::string& name) {
    const auto baseline = kBaselineDir / (name + ".png");
    const char* regenerate = std::getenv("COSIM_REGENERATE_BASELINES");
    if (regenerate != nullptr && std::string(regenerate) == "1") {
      std::filesystem::copy_file(png, baseline, std::filesystem::copy_options::overwrite_existing);
      ADD_FAILURE() << "regenerated " << baseline << " (COSIM_REGENERATE_BASELINES=1): check it, then rerun";
      return;
    }
    ASSERT_TRUE(std::filesystem::exists(baseline)) << baseline << " missing; see COSIM_REGENERATE_BASELINES";
    const double error = visual::image_difference(png, baseline);
    std::printf("image difference %s vs baseline: %g (tolerance %g)\n", name.c_str(), error, kImageTolerance);
    EXPECT_LE(error, kImageTolerance) << png << " vs " << baseline;
  }
};

TEST_F(VisualTest, ReferenceImagesAtTwoPoses) {
  const auto a = render_pose(kPoseA, "robotino_pose_a");
  const auto b = render_pose(kPoseB, "robotino_pose_b");
  expect_matches_baseline(a, "robotino_pose_a");
  expect_matches_baseline(b, "robotino_pose_b");
  // A joint that did not move would leave B looking like A.
  const double a_vs_b = visual::image_difference(a, b);
  std::printf("image difference pose A vs pose B: %g (must exceed %g)\n", a_vs_b, kPoseDifference);
  EXPECT_GT(a_vs_b, kPoseDifference);
  // And the same pose twice is the same picture.
  EXPECT_LE(visual::image_difference(a, render_pose(kPoseA, "robotino_pose_a_again")), kImageTolerance);
  // --screenshot alone is the zero pose (it waited 10 s for a dynamics and failed).
  const auto zero = tmp_.path() / "zero.png";
  auto visual = start_visual({"--scene", (kScenesDir / "robotino").string(), "--screenshot", zero.string(), "--size",
                              "640x360", "-q"},
                             "zero");
  EXPECT_EQ(finish(*visual, "cosim-visual", 30), 0) << visual->err();
  EXPECT_LE(visual::image_difference(a, zero), kImageTolerance);
}

TEST_F(VisualTest, EverySceneRendersAPose) {
  for (const auto& entry : std::filesystem::directory_iterator(kScenesDir)) {
    if (!std::filesystem::is_directory(entry.path() / "projects")) continue;
    const auto png = tmp_.path() / (entry.path().filename().string() + ".png");
    auto visual = start_visual({"--scene", entry.path().string(), "--joints", "", "--screenshot", png.string(),
                                "--size", "320x180", "-q"});
    EXPECT_EQ(finish(*visual, "cosim-visual", 60), 0) << entry.path() << ": " << visual->err();
    EXPECT_TRUE(std::filesystem::exists(png)) << png;
  }
}

TEST_F(VisualTest, CoupledRunWritesAnH264VideoOfEveryFrame) {
  const auto video = tmp_.path() / "out.mp4";
  auto dynamics = start_dynamics({"--duration", "3", "--fps", "30", "--mode", "lockstep"});
  auto visual = start_visual_session({"--offscreen", "--video", video.string(), "--size", "640x360",
                                      "--screenshot-every", "30"});
  ASSERT_EQ(finish(*visual, "cosim-visual"), 0) << visual->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();

  int status = 0;
  const std::string probe = run_command(
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,nb_read_frames,width,height "
      "-show_entries format=format_name -of default=noprint_wrappers=1 '" + video.string() + "'",
      &status);
  ASSERT_EQ(status, 0) << probe;
  EXPECT_NE(probe.find("codec_name=h264"), std::string::npos) << probe;
  EXPECT_NE(probe.find("nb_read_frames=90"), std::string::npos) << probe;
  EXPECT_NE(probe.find("width=640"), std::string::npos) << probe;
  EXPECT_NE(probe.find("format_name=mov,mp4"), std::string::npos) << probe;

  // Probes computed from the rendered actors equal the dynamic model's.
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 90u);
  for (const double diff : probes.values("Robotino/chassis_bottom/diff_same_time_m")) EXPECT_LE(diff, 1e-9);
  // Screenshots of frames 30, 60, 90, the log and the exchanged messages.
  for (const char* shot : {"frame_000030.png", "frame_000060.png", "frame_000090.png"}) {
    EXPECT_TRUE(std::filesystem::exists(run_dir() / "screenshots" / shot)) << shot;
  }
  EXPECT_TRUE(std::filesystem::exists(run_dir() / "visual.cosimlog"));
  const std::string log = read_file(run_dir() / "visual.log");
  EXPECT_NE(log.find("done: 90 frames received, 90 rendered, 0 skipped"), std::string::npos) << log;
}

TEST_F(VisualTest, ReplayOfARecordedRunMakesTheSameVideoWithoutDynamics) {
  // A headless run with the recorder stub, as in CI...
  auto dynamics = start_dynamics({"--duration", "2", "--fps", "30", "--mode", "lockstep"});
  auto recorder = std::make_unique<Process>(kBinDir / "cosim-recorder",
                                            std::vector<std::string>{"--channel", channel(), "--open-timeout", "20"},
                                            tmp_.path() / "recorder");
  ASSERT_EQ(finish(*recorder, "cosim-recorder"), 0) << recorder->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  // ...watched later: the recording played into a video, no dynamics process.
  const auto video = tmp_.path() / "replay.mp4";
  const auto out = tmp_.path() / "replay";
  auto visual = start_visual({"--replay", (run_dir() / "frames.cosimlog").string(), "--as-fast-as-possible",
                              "--offscreen", "--video", video.string(), "--size", "320x180", "--out", out.string()});
  ASSERT_EQ(finish(*visual, "cosim-visual", 120), 0) << visual->err();
  int status = 0;
  const std::string probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                        "stream=nb_read_frames -of default=noprint_wrappers=1 '" + video.string() + "'",
                                        &status);
  ASSERT_EQ(status, 0) << probe;
  EXPECT_NE(probe.find("nb_read_frames=60"), std::string::npos) << probe;
  // The probes of the rendered actors equal the ones reported during the run.
  const std::string log = read_file(out / "visual.log");
  EXPECT_NE(log.find("60 probe reports compared with the recording, max difference 0"), std::string::npos) << log;
}

TEST_F(VisualTest, AReplaySeekingATimeShowsWhatTheLiveRunShowedThen) {
  // The live run renders offscreen and keeps frame 45 (HUD off: its render rate differs)...
  const std::vector<std::string> look{"--offscreen", "--size", "320x180", "--hud", "off", "--inset", "off",
                                      "--screenshot-every", "45"};
  auto dynamics = start_dynamics({"--duration", "3", "--fps", "30", "--mode", "lockstep"});
  auto live = start_visual_session(look);
  ASSERT_EQ(finish(*live, "cosim-visual"), 0) << live->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const auto live_png = run_dir() / "screenshots" / "frame_000045.png";
  ASSERT_TRUE(std::filesystem::exists(live_png));
  // ...the replay jumps straight to its time (frame k at t = k/fps: 1.5 s), the frames before
  // it not shown, and renders the same picture: the robot's pose, the camera, the trail.
  const auto out = tmp_.path() / "replay";
  std::vector<std::string> args{"--replay", run_dir().string(), "--seek", "1.5", "--as-fast-as-possible", "--out",
                                out.string()};
  args.insert(args.end(), look.begin(), look.end());
  auto replay = start_visual(args, "replay");
  ASSERT_EQ(finish(*replay, "cosim-visual", 120), 0) << replay->err();
  const auto replay_png = out / "screenshots" / "frame_000045.png";
  ASSERT_TRUE(std::filesystem::exists(replay_png)) << replay->out();
  const double error = visual::image_difference(replay_png, live_png);
  std::printf("image difference replay at 1.5 s vs live frame 45: %g (tolerance %g)\n", error, kImageTolerance);
  EXPECT_LE(error, kImageTolerance);
  // Only frames 45..90 shown (46: it jumped, it did not play 1..44 unseen), each probe
  // compared with the run's report: the same positions.
  EXPECT_NE(replay->out().find("cosim-visual: 46 frames received"), std::string::npos) << replay->out();
  EXPECT_NE(replay->out().find("replayed probes vs recorded reports: 46 compared, max difference 0 m"),
            std::string::npos)
      << replay->out();
  // Past the end: an error naming the recording's span (it showed the last frame alone).
  auto past = start_visual({"--replay", run_dir().string(), "--seek", "7", "--offscreen", "--out",
                            (tmp_.path() / "past").string()},
                           "past");
  EXPECT_EQ(finish(*past, "cosim-visual", 60), util::kExitBadInput) << past->err();
  EXPECT_NE(past->err().find("--seek 7 s: past the end of "), std::string::npos) << past->err();
  EXPECT_NE(past->err().find("whose frames span 0.0333333 to 3 s"), std::string::npos) << past->err();
}

TEST_F(VisualTest, WindowModeRunsTheSameLoop) {
  // No --offscreen with a display: a window, its event loop polling the session thread.
  auto dynamics = start_dynamics({"--duration", "1", "--fps", "30", "--mode", "lockstep"});
  auto visual = start_visual_session({"--size", "320x180"});
  ASSERT_EQ(finish(*visual, "cosim-visual"), 0) << visual->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 30u);
  for (const double diff : probes.values("Robotino/chassis_bottom/diff_same_time_m")) EXPECT_LE(diff, 1e-9);
}

/// Waits until `file` contains a match of `pattern` (the run's visual.log), up to timeout_s;
/// returns the match and its groups, empty when none came.
std::vector<std::string> wait_for_log(const std::filesystem::path& file, const std::string& pattern,
                                      double timeout_s = 20) {
  const std::regex re(pattern);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::string text;
  do {
    text = std::filesystem::exists(file) ? read_file(file) : "";
    if (std::smatch m; std::regex_search(text, m, re)) return {m.begin(), m.end()};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < until);
  ADD_FAILURE() << "no '" << pattern << "' in " << file << " after " << timeout_s << " s:\n" << text;
  return {};
}

/// Presses one key in the window of cosim-visual showing the Robotino, as a person would:
/// xdotool focuses the window (found by its title; VTK sets no _NET_WM_PID) and types through
/// the X server's XTEST extension. The tests of this binary run one at a time: one such window.
/// A key that closes the window is only pressed (keydown): the window is gone before a release
/// could reach it.
void press_key(const std::string& key, bool closes_window = false) {
  int status = 0;
  const std::string out = run_command(
      "timeout 10 xdotool search --sync --onlyvisible --name '^cosim-visual - Robotino$' windowfocus --sync " +
          std::string(closes_window ? "keydown" : "key") + " --clearmodifiers " + key + " 2>&1",
      &status);
  ASSERT_EQ(status, 0) << "xdotool " << key << ": " << out;
  // Released through XTEST with no window: a key left down would repeat into the next window.
  if (closes_window) run_command("xdotool keyup " + key + " 2>&1");
}

TEST_F(VisualTest, WindowKeysPauseStepSwitchTheCameraAndQuit) {
  if (run_command("command -v xdotool").empty()) GTEST_FAIL() << "xdotool is missing: scripts/setup.sh installs it";
  // 4 s at 30 fps, paced at 1x by the window (the default): time to press keys mid-run.
  auto dynamics = start_dynamics({"--duration", "4", "--fps", "30", "--mode", "lockstep"});
  auto visual = start_visual_session({"--size", "320x180"});
  const auto log = run_dir() / "visual.log";
  wait_for_log(log, "window shown, 320x180, camera follow, speed 1x");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  press_key("space");
  const auto paused = wait_for_log(log, R"(key ' ': paused at frame (\d+))");
  ASSERT_EQ(paused.size(), 2u);
  const long k = std::stol(paused[1]);
  // Paced at 30 frames per wall second: about 15 frames after 0.5 s, never the whole run.
  EXPECT_GT(k, 0);
  EXPECT_LT(k, 100);
  // Held while paused: a second later, one key n shows exactly the next frame, twice.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  press_key("n");
  wait_for_log(log, "step: frame " + std::to_string(k + 1) + " shown");
  press_key("n");
  wait_for_log(log, "step: frame " + std::to_string(k + 2) + " shown");
  press_key("3");
  wait_for_log(log, "key '3': camera overview");
  press_key("plus");
  wait_for_log(log, "key '\\+': speed 2x");
  press_key("space");
  wait_for_log(log, "key ' ': resumed at frame " + std::to_string(k + 2));
  ASSERT_EQ(finish(*visual, "cosim-visual"), 0) << visual->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  // Lockstep: every frame shown, none skipped, the pauses and steps included.
  wait_for_log(log, "done: 120 frames received, 120 rendered, 0 skipped");

  // --hold: the window stays after the run until q.
  std::filesystem::remove_all(run_dir());
  auto dynamics2 = start_dynamics({"--duration", "0.5", "--fps", "30", "--mode", "lockstep"});
  auto visual2 = start_visual_session({"--size", "320x180", "--hold", "--speed", "0"});
  ASSERT_EQ(finish(*dynamics2, "cosim-dynamics"), 0) << dynamics2->err();
  wait_for_log(log, "run finished, the window stays");
  EXPECT_TRUE(visual2->running());
  press_key("q", true);
  EXPECT_EQ(finish(*visual2, "cosim-visual", 20), 0) << visual2->err();
}

TEST_F(VisualTest, AReplayInAWindowJumpsWithItsKeys) {
  if (run_command("command -v xdotool").empty()) GTEST_FAIL() << "xdotool is missing: scripts/setup.sh installs it";
  auto dynamics = start_dynamics({"--duration", "3", "--fps", "30", "--mode", "lockstep"});
  Process recorder(kBinDir / "cosim-recorder", {"--channel", channel(), "--open-timeout", "20"}, tmp_.path() / "rec");
  ASSERT_EQ(finish(recorder, "cosim-recorder"), 0) << recorder.err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  // At half speed: 6 s of wall time for the 3 s run, time to press keys.
  const auto out = tmp_.path() / "replay";
  auto replay = start_visual({"--replay", run_dir().string(), "--size", "320x180", "--speed", "0.5", "--out",
                              out.string()},
                             "replay");
  const auto log = out / "visual.log";
  wait_for_log(log, "window shown");
  press_key("space");
  const auto paused = wait_for_log(log, R"(key ' ': paused at frame (\d+))");
  ASSERT_EQ(paused.size(), 2u);
  const long k = std::stol(paused[1]);
  // Paused, `]` jumps 1 s (30 frames) on and shows that frame at once; `[` comes back.
  press_key("bracketright");
  wait_for_log(log, "step: frame " + std::to_string(k + 30) + " shown");
  press_key("bracketleft");
  wait_for_log(log, "step: frame " + std::to_string(k) + " shown");
  press_key("space");
  EXPECT_EQ(finish(*replay, "cosim-visual", 60), 0) << replay->err();
  // From frame k to the end after the jumps: each probe shown is compared, all equal.
  EXPECT_NE(replay->out().find("max difference 0 m"), std::string::npos) << replay->out();
}

TEST_F(VisualTest, TheLauncherPassesViewerOptionsOnAndWarnsOfFreeMode) {
  // cosim with cosim-visual in a window: free mode, the viewer paced at 1x, so the dynamics
  // (as fast as it can) runs ahead and most of its 60 frames are skipped.
  Process cosim(kBinDir / "cosim",
                {"--backend", "kinematic", "--duration", "2", "--fps", "30", "--mode", "free", "--out",
                 run_dir().string(), "--size", "320x180", "--camera", "overview", "--screenshot-every", "1",
                 "--no-hold", "--hud", "off"},
                tmp_.path() / "cosim");
  ASSERT_EQ(finish(cosim, "cosim"), 0) << cosim.err();
  const std::string err = cosim.err();
  EXPECT_NE(err.find("cosim: warning: --mode free: cosim-dynamics does not wait for the renderer"), std::string::npos)
      << err;
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(cosim-visual showed \d+ of 60 frames \(\d+ skipped)"))) << err;
  EXPECT_NE(read_file(run_dir() / "visual.log").find("window shown, 320x180, camera overview"), std::string::npos);
  EXPECT_NE(read_file(run_dir() / "visual.log").find(", HUD off"), std::string::npos) << "--hud reached cosim-visual";
  // --screenshot-every and --size reached cosim-visual: PNGs of 320x180 (IHDR width, height).
  int shots = 0;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir() / "screenshots")) {
    const std::string png = read_file(entry.path());
    ASSERT_GT(png.size(), 24u);
    auto be32 = [&](std::size_t at) {
      return (static_cast<unsigned char>(png[at]) << 24) | (static_cast<unsigned char>(png[at + 1]) << 16) |
             (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
    };
    EXPECT_EQ(be32(16), 320u);
    EXPECT_EQ(be32(20), 180u);
    ++shots;
  }
  EXPECT_GT(shots, 0);

  // The recorder has no picture: a viewer option with it is one clear error, before anything starts.
  Process refused(kBinDir / "cosim", {"--recorder", "--camera", "follow", "--out", (tmp_.path() / "r").string()},
                  tmp_.path() / "refused");
  EXPECT_EQ(finish(refused, "cosim", 10), util::kExitBadInput);
  EXPECT_NE(refused.err().find("--camera is an option of cosim-visual"), std::string::npos) << refused.err();
}

// A viewer that refuses an option before it connects: the dynamics, waiting for it, is stopped
// at once (it waited its whole 10 s --open-timeout), the launcher ends with the viewer's exit
// code (it was 3) and writes no report of a run without frames.
TEST_F(VisualTest, TheLauncherEndsAtOnceWithTheViewersCodeWhenTheViewerRefusesAnOption) {
  const auto start = std::chrono::steady_clock::now();
  Process cosim(kBinDir / "cosim", {"--backend", "kinematic", "--duration", "2", "--out", run_dir().string(), "--size", "640"},
                tmp_.path() / "cosim");
  EXPECT_EQ(finish(cosim, "cosim", 30), util::kExitBadInput) << cosim.err();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3)) << cosim.err();
  const std::string err = cosim.err();
  EXPECT_NE(err.find("cosim-visual: error: --size"), std::string::npos) << err;
  EXPECT_NE(err.find("cosim: no report: the run ended before its first frame"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "report.md"));
}

TEST_F(VisualTest, SlowRendererInFreeModeSkipsFramesAndSaysSo) {
  auto dynamics = start_dynamics({"--duration", "4", "--fps", "50", "--mode", "free"});
  auto visual = start_visual_session({"--offscreen", "--size", "320x180", "--slow-ms", "20"});
  ASSERT_EQ(finish(*visual, "cosim-visual"), 0) << visual->err();
  ASSERT_EQ(finish(*dynamics, "cosim-dynamics"), 0) << dynamics->err();
  const std::string log = read_file(run_dir() / "visual.log");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(log, m, std::regex(R"(done: (\d+) frames received, (\d+) rendered, (\d+) skipped)")))
      << log;
  const long received = std::stol(m[1]), rendered = std::stol(m[2]), skipped = std::stol(m[3]);
  EXPECT_EQ(received, 200);
  EXPECT_GT(skipped, 0);
  EXPECT_EQ(rendered + skipped, received);
  EXPECT_NE(visual->out().find(std::to_string(skipped) + " skipped"), std::string::npos) << visual->out();
}

TEST_F(VisualTest, BadSceneExitsTwoWithFileAndLine) {
  for (const char* name : {"bad_malformed", "bad_unknown_element", "bad_missing_mesh"}) {
    auto visual = start_visual({"--scene", (kTestScenesDir / name).string(), "--offscreen"}, name);
    EXPECT_EQ(finish(*visual, "cosim-visual", 30), util::kExitBadInput) << name;
    const std::string err = visual->err();
    EXPECT_TRUE(std::regex_search(err, std::regex(R"(^cosim-visual: error: /\S+\.xml:\d+: )"))) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

TEST_F(VisualTest, UnreadableMeshExitsTwoNamingIt) {
  const auto scene = tmp_.path() / "scene";
  std::filesystem::copy(kTestScenesDir / "arm2", scene, std::filesystem::copy_options::recursive);
  { std::ofstream(scene / "meshes" / "bracket.stl") << "solid bracket\n  this is not STL\n"; }
  auto visual = start_visual({"--scene", scene.string(), "--joints", "", "--screenshot",
                              (tmp_.path() / "x.png").string()});
  EXPECT_EQ(finish(*visual, "cosim-visual", 30), util::kExitBadInput);
  const std::string err = visual->err();
  EXPECT_NE(err.find("Arm2.xml:"), std::string::npos) << err;
  EXPECT_NE(err.find("bracket.stl"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(VisualTest, BadOptionsAndPosesExitTwo) {
  const std::vector<std::vector<std::string>> cases{
      {"--size", "12x"},
      {"--camera", "sideways"},
      {"--joints", "Robotino/nope=1", "--screenshot", "x.png"},
      {"--joints", "Robotino/x=1", "--offscreen"},
      {"--joints", "Robotino/x=3deg", "--screenshot", "x.png"},
      {"--screenshot", "x.jpg"},
  };
  for (const auto& args : cases) {
    auto visual = start_visual(args);
    EXPECT_EQ(finish(*visual, "cosim-visual", 30), util::kExitBadInput) << args[0] << " " << args[1];
    const std::string err = visual->err();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

TEST_F(VisualTest, ProtocolMajorMismatchExitsFour) {
  auto dynamics = start_dynamics({"--duration", "1", "--fps", "10"});
  auto visual = start_visual_session({"--offscreen", "--protocol-major", "2"});
  EXPECT_EQ(finish(*visual, "cosim-visual"), util::kExitVersionMismatch) << visual->err();
  EXPECT_EQ(finish(*dynamics, "cosim-dynamics"), util::kExitVersionMismatch) << dynamics->err();
}

// The test plays the dynamics: a Hello announcing 0 frames is refused, and the dynamics is
// told why with an Error rather than left to time out (the recorder: hostile_test.cpp).
TEST_F(VisualTest, AHelloItRefusesIsAnsweredWithAnError) {
  auto visual = start_visual_session({"--offscreen"});
  auto channel = open_peer(protocol::ChannelRole::dynamics, std::chrono::seconds(20));
  wire::MessageStream stream(*channel);
  v1::Envelope hello;
  v1::Hello& h = *hello.mutable_hello();
  h.mutable_protocol()->set_major(protocol::kProtocolMajor);
  h.set_model("Robotino");
  h.set_fps(20);
  h.set_mode(v1::MODE_LOCKSTEP);
  h.set_frame_count(0);
  ASSERT_FALSE(stream.send(hello, std::chrono::seconds(5)));
  v1::Envelope answer;
  ASSERT_FALSE(stream.receive(answer, std::chrono::seconds(10)));
  ASSERT_TRUE(answer.has_error()) << answer.ShortDebugString();
  EXPECT_EQ(answer.error().code(), v1::ERROR_CODE_PROTOCOL);
  EXPECT_NE(answer.error().message().find("0 frames"), std::string::npos) << answer.error().message();
  EXPECT_EQ(finish(*visual, "cosim-visual"), util::kExitPeerFailure) << visual->err();
}

/// Runs `body` with PATH (and DISPLAY, if given) replaced, for the child processes it starts.
template <typename Body>
void with_environment(const std::string& path, const char* display, Body body) {
  const std::string old_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  const std::string old_display = std::getenv("DISPLAY") != nullptr ? std::getenv("DISPLAY") : "";
  ::setenv("PATH", path.c_str(), 1);
  if (display != nullptr) ::setenv("DISPLAY", display, 1);
  body();
  ::setenv("PATH", old_path.c_str(), 1);
  ::setenv("DISPLAY", old_display.c_str(), 1);
}

TEST_F(VisualTest, WithoutFfmpegTheVideoIsOggTheora) {
  const auto video = tmp_.path() / "bench.mp4";
  with_environment(tmp_.path().string(), nullptr, [&] {
    auto visual = start_visual({"--bench-frames", "12", "--size", "320x180", "--video", video.string()});
    EXPECT_EQ(finish(*visual, "cosim-visual", 60), 0) << visual->err();
  });
  const auto ogv = tmp_.path() / "bench.ogv";
  ASSERT_TRUE(std::filesystem::exists(ogv));
  const std::string probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                        "stream=codec_name,nb_read_frames -of default=noprint_wrappers=1 '" +
                                        ogv.string() + "'");
  EXPECT_NE(probe.find("codec_name=theora"), std::string::npos) << probe;
  EXPECT_NE(probe.find("nb_read_frames=12"), std::string::npos) << probe;
}

TEST_F(VisualTest, NoDisplayAndNoXvfbIsOneClearError) {
  with_environment(tmp_.path().string(), "", [&] {
    auto visual = start_visual({"--joints", "", "--screenshot", (tmp_.path() / "x.png").string()});
    EXPECT_EQ(finish(*visual, "cosim-visual", 30), util::kExitBadInput);
    const std::string err = visual->err();
    EXPECT_NE(err.find("Xvfb is not on PATH"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  });
}

// Bring your own robot (README): a MuJoCo model run with no scene written for it. The
// launcher hands the model to both sides as their scene, the viewer draws what MuJoCo compiled
// (meshes included), and its probes, measured on the rendered actors, equal the dynamics' own.
TEST_F(VisualTest, AMujocoModelRunsWithoutAHandWrittenScene) {
  const std::string model = (kExamplesDir / "mjcf_arm" / "arm.xml").string();
  Process cosim(kBinDir / "cosim",
                {"--backend", "mujoco", "--param", "model=" + model, "--duration", "1", "--fps", "20", "--out",
                 run_dir().string(), "--size", "320x180", "--no-hold", "--hud", "off"},
                tmp_.path() / "cosim");
  ASSERT_EQ(finish(cosim, "cosim"), 0) << cosim.err();
  EXPECT_EQ(read_run_json(run_dir()).get<int>("summary.reports_received"), 20);
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 20u);
  // The default probe: the first moving body (the arm's turret), not every body.
  const auto diffs = probes.values("MjArm/turret/diff_same_time_m");
  ASSERT_EQ(diffs.size(), 20u);
  for (const double d : diffs) EXPECT_LE(d, 1e-12) << "the actors' matrices are the scene model's, to rounding";
  EXPECT_NE(read_file(run_dir() / "dynamics.log").find("scene MjArm from " + model), std::string::npos)
      << "the dynamics drew its model too";
}

// A URDF mobile base driven from a joint CSV: the rover's chassis goes round the CSV's circle
// (radius 1 m through the origin in 10 s) in dynamics.csv and on the viewer's actors.
TEST_F(VisualTest, AUrdfRoverFollowsItsJointCsvAroundACircle) {
  const auto rover = kExamplesDir / "rover";
  Process cosim(kBinDir / "cosim",
                {"--backend", "trajectory", "--scene", (rover / "rover.urdf").string(), "--param",
                 "trajectory=" + (rover / "circle.csv").string(), "--duration", "2.5", "--fps", "20", "--out",
                 run_dir().string(), "--size", "320x180", "--no-hold", "--hud", "off"},
                tmp_.path() / "cosim");
  ASSERT_EQ(finish(cosim, "cosim"), 0) << cosim.err();
  const Csv probes = read_csv(run_dir() / "probes.csv");
  ASSERT_EQ(probes.rows.size(), 50u);
  const auto t = probes.values("t_frame_s");
  const auto x = probes.values("rover/chassis/virtual_x_m");
  const auto y = probes.values("rover/chassis/virtual_y_m");
  const auto diffs = probes.values("rover/chassis/diff_same_time_m");
  constexpr double kOmega_rad_per_s = 2 * std::numbers::pi / 10;
  for (std::size_t i = 0; i < t.size(); ++i) {
    // Linear between rows 0.1 s apart: a chord of the circle is off it by at most
    // R (Ω·0.1 s)²/8 = 4.9e-4 m.
    EXPECT_NEAR(x[i], std::sin(kOmega_rad_per_s * t[i]), 5e-4) << "t = " << t[i];
    EXPECT_NEAR(y[i], 1 - std::cos(kOmega_rad_per_s * t[i]), 5e-4) << "t = " << t[i];
    EXPECT_LE(diffs[i], 1e-12);
  }
  EXPECT_GT(x.back(), 0.7) << "a quarter turn in 2.5 s";
}

}  // namespace
}  // namespace cosim::test

namespace cosim::test {
namespace {

/// Pids of the processes whose parent is `parent` and whose command is `name` (from /proc).
std::vector<pid_t> children_named(pid_t parent, const std::string& name) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid_text = entry.path().filename().string();
    if (pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string comm = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && comm == name) found.push_back(static_cast<pid_t>(std::stol(pid_text)));
  }
  return found;
}

/// True while `pid` runs: not gone and not a zombie waiting for a parent to reap it (in a
/// container, whoever adopted it may never do).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

TEST_F(VisualTest, ItsOwnXvfbDiesWithItEvenAfterSigkill) {
  for (const int signal : {0, SIGKILL}) {
    std::unique_ptr<Process> visual;
    with_environment(std::getenv("PATH"), "", [&] {
      ::unsetenv("DISPLAY");
      visual = start_visual({"--bench-frames", signal == 0 ? "20" : "1000000", "--size", "320x180"},
                            signal == 0 ? "visual-done" : "visual-killed");
    });
    std::vector<pid_t> xvfb;
    for (int i = 0; i < 200 && xvfb.empty() && visual->running(); ++i) {
      xvfb = children_named(visual->pid(), "Xvfb");
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (signal == 0 && xvfb.empty()) {
      // A quick bench may be over before we look; it must still have ended cleanly.
      EXPECT_EQ(finish(*visual, "cosim-visual", 60), 0) << visual->err();
      continue;
    }
    ASSERT_EQ(xvfb.size(), 1u) << "cosim-visual without DISPLAY starts one Xvfb";
    if (signal != 0) visual->kill(signal);
    const int code = finish(*visual, "cosim-visual", 60);
    EXPECT_EQ(code, signal == 0 ? 0 : 128 + signal) << visual->err();
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
      // Ended by us at exit, or by the kernel's parent-death signal after SIGKILL.
      gone = !running(xvfb[0]);
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    EXPECT_TRUE(gone) << "Xvfb " << xvfb[0] << " outlived cosim-visual (signal " << signal << ")";
  }
}

}  // namespace
}  // namespace cosim::test
