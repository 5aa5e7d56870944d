// run.json and visual.json: the writer's output read back field for field, and the strict
// reader's refusals — each one line naming the file and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cosim/run/run_summary.hpp"
#include "cosim/run/visual_summary.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/json_writer.hpp"

#ifndef _WIN32
#include <sys/stat.h>
#endif

namespace cosim::run {
namespace {

namespace fs = std::filesystem;

RunSummary sample() {
  RunSummary r;
  r.run_id = "20261127T110000Z-robotino";
  r.status = "ok";
  r.error = "";
  r.command = "cosim-dynamics --fps 20 --scene 'é/scène'";
  r.finished_utc = "2026-11-27T11:00:00Z";
  r.wall_s = 0.25;
  r.software_version = "0.1.0";
  r.protocol_version = "1.1";
  r.protobuf_version = "3.21.12";
  r.backend = "robotino";
  r.model = "robotino";
  r.scene = "scenes/robotino";
  r.scene_name = "robotino";
  r.mode = "lockstep";
  r.fps = 20;
  r.rate = 1;
  r.duration_s = 50;
  r.output_step_s = 0.02;
  r.channel = "fifo:/tmp/x";
  r.frame_count = 1000;
  r.parameters = {{"m_kg", 21.5, "kg", "default"}, {"trajectory", std::string("a,b.csv"), "", "cli"}};
  r.joint_names = {"Robotino/x", "Robotino/y"};
  r.probe_names = {"centre"};
  r.peer_kind = "recorder";
  r.peer_software_version = "0.1.0";
  r.peer_scene = "robotino";
  r.totals.frames_sent = 1000;
  r.totals.reports_received = 999;
  r.totals.frames_skipped_by_visual = 1;
  r.totals.overruns = 0;
  r.totals.dynamics_csv_rows = 2501;
  r.totals.delay_frames = {999, 0, 0, 1, 0.001};
  r.totals.rtt_us = {999, 12.5, 30.25, 1e3, 14.0};
  r.totals.diff_same_time_m = {999, 1e-13, 2e-13, 3e-13, 1.5e-13};
  // delay_sim_s and diff_at_arrival_m stay empty: NaN statistics, written as null.
  r.totals.delay_sim_s = {0, NAN, NAN, NAN, NAN};
  r.totals.diff_at_arrival_m = {0, NAN, NAN, NAN, NAN};
  return r;
}

/// The one error line parse_run_summary throws for `text`, or "" when it reads it.
std::string refusal(const std::string& text) {
  try {
    parse_run_summary(text, "RUN/run.json");
  } catch (const util::BadInputError& e) {
    return e.what();
  }
  return "";
}

/// `text` with its first `from` replaced by `to` (the test fails if there is none).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(RunSummary, ReadsBackWhatItWrote) {
  const RunSummary w = sample();
  const std::string text = to_json(w);
  ASSERT_EQ(text.rfind("{\n  \"schema_version\": 1,\n", 0), 0u) << text;
  const RunSummary r = parse_run_summary(text, "run.json");
  EXPECT_EQ(r.run_id, w.run_id);
  EXPECT_EQ(r.command, w.command);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.fps, 20.0);  // written as 20, an integer in JSON: still a number
  EXPECT_EQ(r.output_step_s, 0.02);
  EXPECT_EQ(r.frame_count, 1000u);
  ASSERT_EQ(r.parameters.size(), 2u);
  EXPECT_EQ(std::get<double>(r.parameters[0].value), 21.5);
  EXPECT_EQ(std::get<std::string>(r.parameters[1].value), "a,b.csv");
  EXPECT_EQ(r.parameters[1].origin, "cli");
  EXPECT_EQ(r.joint_names, w.joint_names);
  EXPECT_EQ(r.probe_names, w.probe_names);
  EXPECT_EQ(r.peer_kind, "recorder");
  EXPECT_EQ(r.totals.reports_received, 999u);
  EXPECT_EQ(r.totals.rtt_us.p99, 30.25);
  EXPECT_EQ(r.totals.diff_same_time_m.max, 3e-13);  // shortest round trip: exact
  EXPECT_EQ(r.totals.delay_sim_s.count, 0u);
  EXPECT_TRUE(std::isnan(r.totals.delay_sim_s.p50));
  // Written again, byte for byte the same document.
  EXPECT_EQ(to_json(r), text);
}

TEST(RunSummary, RefusesAMissingKeyNamingIt) {
  const std::string text = to_json(sample());
  const std::string why = refusal(replaced(text, "\"frames_sent\": 1000,\n", ""));
  EXPECT_EQ(why, "RUN/run.json: key 'summary.frames_sent': missing (expected a non-negative integer)");
  EXPECT_EQ(refusal(replaced(text, "    \"p99\": 30.25,\n", "")),
            "RUN/run.json: key 'summary.rtt_us.p99': missing (expected a number)");
}

TEST(RunSummary, RefusesANumberBeyondADoubleAsOneLine) {
  // nlohmann throws out_of_range (not parse_error) for it: found by the runjson fuzz target.
  const std::string why = refusal(replaced(to_json(sample()), "\"fps\": 20,", "\"fps\": 33E333,"));
  EXPECT_EQ(why.rfind("RUN/run.json: ", 0), 0u) << why;
  EXPECT_NE(why.find("33E333"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(RunSummary, RefusesAWrongTypeNamingIt) {
  const std::string text = to_json(sample());
  EXPECT_EQ(refusal(replaced(text, "\"fps\": 20,", "\"fps\": \"20\",")),
            "RUN/run.json: key 'fps': expected a number, found a string");
  EXPECT_EQ(refusal(replaced(text, "\"frame_count\": 1000,", "\"frame_count\": -1,")),
            "RUN/run.json: key 'frame_count': expected a non-negative integer, found -1");
  EXPECT_EQ(refusal(replaced(text, "\"frame_count\": 1000,", "\"frame_count\": 1.5,")),
            "RUN/run.json: key 'frame_count': expected a non-negative integer, found a number");
  EXPECT_EQ(refusal(replaced(text, "[\"centre\"]", "[\"centre\", 3]")),
            "RUN/run.json: key 'probe_names': expected an array of strings, found a number in it");
  EXPECT_EQ(refusal(replaced(text, "\"status\": \"ok\"", "\"status\": \"fine\"")),
            "RUN/run.json: key 'status': 'fine' is none of running, ok, failed, interrupted, numerical_failure");
  EXPECT_EQ(refusal(replaced(text, "\"value\": 21.5", "\"value\": true")),
            "RUN/run.json: key 'parameters.m_kg.value': expected a number, found a boolean");
}

TEST(RunSummary, RefusesAnotherSchemaVersion) {
  const std::string text = to_json(sample());
  EXPECT_EQ(refusal(replaced(text, "\"schema_version\": 1", "\"schema_version\": 2")),
            "RUN/run.json: key 'schema_version': schema 2, this cosim reads schema 1: written by a newer cosim");
  const std::string older = refusal(replaced(text, "\"schema_version\": 1,\n", ""));
  EXPECT_EQ(older.rfind("RUN/run.json: key 'schema_version': missing: written by a cosim older", 0), 0u) << older;
}

TEST(RunSummary, RefusesWhatIsNotARunJson) {
  EXPECT_EQ(refusal("[1, 2]"), "RUN/run.json: not a JSON object");
  const std::string syntax = refusal("{\n  \"run_id\": \"x\",\n  oops\n}");
  EXPECT_EQ(syntax.rfind("RUN/run.json: parse error at line 3, column 3: syntax error while parsing object key", 0), 0u)
      << syntax;
  // Nesting is refused as it is read, not after a whole deep tree was built.
  EXPECT_EQ(refusal("{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}"),
            "RUN/run.json: nested deeper than 16 levels");
  const std::string invalid = refusal("{\"run_id\": \"\xff\"}");
  EXPECT_NE(invalid.find("invalid"), std::string::npos) << invalid;
  for (const std::string& line : {syntax, invalid}) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

TEST(RunSummary, WritesInvalidUtf8AsReplacementCharacters) {
  RunSummary r = sample();
  r.command = "cosim-dynamics --scene caf\xe9";  // Latin-1, from a command line
  const RunSummary back = parse_run_summary(to_json(r), "run.json");
  EXPECT_EQ(back.command, "cosim-dynamics --scene caf\xef\xbf\xbd");
}

class RunJsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cosim_run_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string refusal_of(const fs::path& file) {
    try {
      read_run_summary(file);
    } catch (const util::BadInputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(RunJsonFile, ReadsAFileAndRefusesWhatIsNotOne) {
  {
    std::ofstream(dir_ / "run.json", std::ios::binary) << to_json(sample());
  }
  EXPECT_EQ(read_run_summary(dir_ / "run.json").backend, "robotino");
  EXPECT_NE(refusal_of(dir_ / "none.json").find("none.json: no such file"), std::string::npos);
  fs::create_directories(dir_ / "folder.json");
  EXPECT_NE(refusal_of(dir_ / "folder.json").find("folder.json: not a regular file"), std::string::npos);
  {
    std::ofstream big(dir_ / "big.json", std::ios::binary);
    big << std::string(kMaxRunJsonBytes + 1, ' ');
  }
  EXPECT_NE(refusal_of(dir_ / "big.json").find("more than the 4194304 a run.json may have"), std::string::npos);
#ifndef _WIN32
  // A FIFO named run.json would block a reader that opened it: refused before opening.
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  EXPECT_NE(refusal_of(dir_ / "fifo.json").find("fifo.json: not a regular file"), std::string::npos);
#endif
}

TEST(VisualSummary, WritesAFileAndReadsItBackStrictly) {
  const fs::path dir = fs::temp_directory_path() / "cosim_visual_summary_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  VisualSummary v;
  v.program = "cosim-visual";
  v.frames_received = 120;
  v.frames_shown = 100;
  v.frames_skipped = 20;
  v.frames_per_s = 61.5;
  v.video = (dir / "video.mp4").string();
  v.video_frames = 100;
  v.replay_max_difference_m = NAN;
  const fs::path file = visual_summary_file(dir, v.program);
  EXPECT_EQ(file.filename(), "visual.json");
  EXPECT_EQ(visual_summary_file(dir, "cosim-recorder").filename(), "recorder.json");
  write_visual_summary(file, v);
  EXPECT_FALSE(fs::exists(dir / "visual.json.tmp"));
  const VisualSummary back = read_visual_summary(file);
  EXPECT_EQ(back.frames_received, 120u);
  EXPECT_EQ(back.frames_shown, 100u);
  EXPECT_EQ(back.frames_skipped, 20u);
  EXPECT_EQ(back.frames_per_s, 61.5);
  EXPECT_EQ(back.video, v.video);
  EXPECT_TRUE(std::isnan(back.replay_max_difference_m));
  try {
    parse_visual_summary(replaced(to_json(v), "\"frames_shown\": 100", "\"frames_shown\": \"100\""), "visual.json");
    FAIL();
  } catch (const util::BadInputError& e) {
    EXPECT_STREQ(e.what(), "visual.json: key 'frames_shown': expected a non-negative integer, found a string");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cosim::run
