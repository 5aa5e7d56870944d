// platform::Process against real children. The child is this test executable started with
// "--child WHAT ...", so the suite needs nothing from the system and runs unchanged on
// Windows: exit codes, arguments that need quoting, output files, the working folder,
// waiting with a timeout, a clean stop, a kill, what the child started, start errors.
#include "cosim/platform/process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"

#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#endif

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using cosim::platform::Process;
using cosim::platform::ProcessOptions;
using cosim::platform::ProcessStartError;

namespace {

// ---- the child side ----

std::atomic<int> g_interrupts{0};
void count_interrupt() noexcept { g_interrupts.fetch_add(1); }

void touch(const std::string& path) { std::ofstream(cosim::platform::path_from_utf8(path)) << "ready\n"; }

/// The child's behaviours; args[0] is the program, args[1] "--child".
int child_main(const std::vector<std::string>& args) {
  const std::string what = args.size() > 2 ? args[2] : "";
  const auto arg = [&](std::size_t i) { return args.size() > 3 + i ? args[3 + i] : std::string(); };
  if (what == "exit") return std::stoi(arg(0));
#ifndef _WIN32
  if (what == "segv") return raise(SIGSEGV);  // (under ASan: its report, then SIGABRT)
#endif
  if (what == "echo") {  // each argument on a line of its own, in brackets
    for (std::size_t i = 3; i < args.size(); ++i) std::printf("[%s]\n", args[i].c_str());
    return 0;
  }
  if (what == "streams") {
    std::printf("to stdout\n");
    std::fflush(stdout);
    std::fprintf(stderr, "to stderr\n");
    return 0;
  }
  if (what == "cwd") {
    std::printf("%s\n", cosim::platform::utf8(fs::current_path()).c_str());
    return 0;
  }
  if (what == "count-stdin") {  // reads stdin to its end; says how many bytes and their sum
    std::size_t bytes = 0, sum = 0;
    for (int c; (c = std::getchar()) != EOF;) {
      ++bytes;
      sum += static_cast<unsigned char>(c);
    }
    std::printf("%zu %zu\n", bytes, sum);
    return 0;
  }
  if (what == "sleep") {
    std::this_thread::sleep_for(milliseconds(std::stoi(arg(0))));
    return 0;
  }
  if (what == "until-interrupted" || what == "ignore-interrupts") {
    // Ready only once the handler is in place; then wait (at most a minute) for an interrupt.
    cosim::platform::install_interrupt_handler(count_interrupt);
    touch(arg(0));
    const bool obey = what == "until-interrupted";
    for (int i = 0; i < 6000 && !(obey && g_interrupts.load() > 0); ++i) std::this_thread::sleep_for(milliseconds(10));
    return g_interrupts.load() > 0 ? 130 : 0;
  }
  if (what == "grandchild") {  // starts a sleeping grandchild, says its id, then sleeps
    Process grandchild(args[0], {"--child", "sleep", "60000"});
    {
      std::ofstream out(cosim::platform::path_from_utf8(arg(0) + ".tmp"));
      out << grandchild.id() << "\n";
    }
    fs::rename(cosim::platform::path_from_utf8(arg(0) + ".tmp"), cosim::platform::path_from_utf8(arg(0)));
    std::this_thread::sleep_for(milliseconds(60000));
    return 0;
  }
  std::fprintf(stderr, "process_test: unknown child behaviour '%s'\n", what.c_str());
  return 99;
}

// ---- the test side ----

std::string self() { return cosim::platform::utf8(cosim::platform::executable_path()); }

std::vector<std::string> child(std::vector<std::string> args) {
  args.insert(args.begin(), "--child");
  return args;
}

/// A file's text without the '\r' a Windows child's text-mode stdout adds.
std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  std::erase(out, '\r');
  return out;
}

bool wait_for_file(const fs::path& path, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

/// Whether a process with this id still runs (a POSIX zombie does not).
bool alive(std::int64_t id) {
#ifdef _WIN32
  const HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(id));
  if (h == nullptr) return false;
  DWORD code = 0;
  const bool running = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
  CloseHandle(h);
  return running;
#else
  if (::kill(static_cast<pid_t>(id), 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(id) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren == std::string::npos || line.size() < paren + 3 || line[paren + 2] != 'Z';
#endif
}

bool gone_within(std::int64_t id, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (alive(id)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

class ProcessTest : public ::testing::Test {
 protected:
  ProcessTest() : dir_(cosim::platform::make_private_temp_dir("cosim-process-test.")) {}
  ~ProcessTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const char* name) const { return cosim::platform::utf8(dir_ / name); }

  fs::path dir_;
};

TEST_F(ProcessTest, ReturnsTheChildsExitCode) {
  Process zero(self(), child({"exit", "0"}));
  Process three(self(), child({"exit", "3"}));
  EXPECT_EQ(zero.wait(), 0);
  EXPECT_EQ(three.wait(), 3);
  EXPECT_EQ(three.wait(), 3) << "the code stays once reaped";
  EXPECT_FALSE(three.running());
  EXPECT_GT(three.id(), 0);
}

TEST_F(ProcessTest, ACrashIsSaidAndAnExitCodeIsNot) {
  EXPECT_EQ(cosim::platform::crash_description(0), "");
  EXPECT_EQ(cosim::platform::crash_description(2), "");
  EXPECT_EQ(cosim::platform::crash_description(130), "") << "an interrupt is no crash";
#ifdef _WIN32
  EXPECT_EQ(cosim::platform::crash_description(static_cast<int>(0xC0000005u)), "a crash (access violation)");
#else
  EXPECT_EQ(cosim::platform::crash_description(128 + SIGSEGV), "a crash (SIGSEGV)");
  Process segv(self(), child({"segv"}));
  EXPECT_THAT(cosim::platform::crash_description(segv.wait()), ::testing::StartsWith("a crash (SIG"));
#endif
}

TEST_F(ProcessTest, ArgumentsArriveUnchanged) {
  // What the Windows command line must quote: blanks, quotes, backslashes before quotes and
  // at the end, empty arguments; and UTF-8 beyond ASCII.
  const std::vector<std::string> args{"plain",      "two words",   "",           "quote \" inside",
                                      "back\\slash", "trailing\\", "dir with\\", "a\\\"b",
                                      "tab\there",  "\\\\server\\share",          "ünïcödé → ✓"};
  std::vector<std::string> command{"echo"};
  command.insert(command.end(), args.begin(), args.end());
  Process echo(self(), child(command), {.stdout_file = file("echo.out")});
  ASSERT_EQ(echo.wait(), 0);
  std::string expected;
  for (const auto& arg : args) expected += "[" + arg + "]\n";
  EXPECT_EQ(read_text(dir_ / "echo.out"), expected);
}

TEST_F(ProcessTest, StdinPipeCarriesEverythingWrittenThenEndOfFile) {
  // 4 MiB, far more than a pipe holds: write_stdin blocks while the child reads. Letters
  // only, so a text-mode stdin (Windows) reads them as they are.
  std::vector<std::byte> block(64 * 1024);
  std::size_t sum = 0;
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>('A' + i % 26);
  for (const std::byte b : block) sum += static_cast<unsigned char>(b);
  constexpr std::size_t kBlocks = 64;
  Process counter(self(), child({"count-stdin"}), {.stdout_file = file("count.out"), .stdin_pipe = true});
  for (std::size_t i = 0; i < kBlocks; ++i) ASSERT_FALSE(counter.write_stdin(block)) << "block " << i;
  counter.close_stdin();
  counter.close_stdin();  // idempotent
  ASSERT_EQ(counter.wait(), 0);
  EXPECT_EQ(read_text(dir_ / "count.out"),
            std::to_string(kBlocks * block.size()) + " " + std::to_string(kBlocks * sum) + "\n");
}

TEST_F(ProcessTest, WritingToAChildThatIsGoneIsBrokenPipe) {
  Process gone(self(), child({"exit", "0"}), {.stdin_pipe = true});
  ASSERT_EQ(gone.wait(), 0);
  const std::vector<std::byte> bytes(256 * 1024, std::byte{'x'});
  EXPECT_EQ(gone.write_stdin(bytes), std::errc::broken_pipe) << "an error code, not a SIGPIPE death";
}

TEST_F(ProcessTest, StdoutAndStderrGoToTheFilesGiven) {
  Process apart(self(), child({"streams"}), {.stdout_file = file("apart.out"), .stderr_file = file("apart.err")});
  ASSERT_EQ(apart.wait(), 0);
  EXPECT_EQ(read_text(dir_ / "apart.out"), "to stdout\n");
  EXPECT_EQ(read_text(dir_ / "apart.err"), "to stderr\n");

  Process together(self(), child({"streams"}), {.stdout_file = file("both.txt"), .stderr_file = file("both.txt")});
  ASSERT_EQ(together.wait(), 0);
  EXPECT_EQ(read_text(dir_ / "both.txt"), "to stdout\nto stderr\n");
}

TEST_F(ProcessTest, RunsInTheWorkingFolderGiven) {
  fs::create_directories(dir_ / "work here");
  Process cwd(self(), child({"cwd"}), {.working_dir = file("work here"), .stdout_file = file("cwd.out")});
  ASSERT_EQ(cwd.wait(), 0);
  std::string printed = read_text(dir_ / "cwd.out");
  ASSERT_FALSE(printed.empty());
  printed.pop_back();  // the newline
  EXPECT_TRUE(fs::equivalent(cosim::platform::path_from_utf8(printed), dir_ / "work here")) << printed;
}

TEST_F(ProcessTest, WaitForReturnsNothingWhileTheChildRuns) {
  Process sleeper(self(), child({"sleep", "20000"}));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(sleeper.wait_for(milliseconds(100)), std::nullopt);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(100));
  EXPECT_TRUE(sleeper.running());
  sleeper.kill();
  EXPECT_EQ(sleeper.wait_for(milliseconds(10000)), 137) << "128 + SIGKILL, on every system";
}

TEST_F(ProcessTest, TerminateAsksTheChildToStopCleanly) {
  Process child_process(self(), child({"until-interrupted", file("ready")}));
  ASSERT_TRUE(wait_for_file(dir_ / "ready", milliseconds(20000)));
  // SIGTERM on POSIX; on Windows a Ctrl-Break, or without a shared console (Wine) the
  // child's stop event: either way its handler runs, never the last resort.
  ASSERT_TRUE(child_process.terminate());
  EXPECT_EQ(child_process.wait_for(milliseconds(20000)), 130) << "its handler ran and it ended on its own";
  EXPECT_TRUE(child_process.terminate()) << "reaped: nothing to do";
}

TEST_F(ProcessTest, KillEndsAChildThatIgnoresInterrupts) {
  Process stubborn(self(), child({"ignore-interrupts", file("ready")}));
  ASSERT_TRUE(wait_for_file(dir_ / "ready", milliseconds(20000)));
  ASSERT_TRUE(stubborn.terminate());
  EXPECT_EQ(stubborn.wait_for(milliseconds(300)), std::nullopt);
  stubborn.kill();
  EXPECT_EQ(stubborn.wait_for(milliseconds(10000)), 137);
}

TEST_F(ProcessTest, DestroyingARunningProcessEndsIt) {
  std::int64_t id = 0;
  {
    Process sleeper(self(), child({"sleep", "60000"}));
    id = sleeper.id();
    ASSERT_TRUE(alive(id));
  }
  EXPECT_FALSE(alive(id));
}

TEST_F(ProcessTest, KillingAGroupLeaderEndsWhatItStarted) {
  // POSIX: the signal goes to the child's own process group; Windows: to its job object.
  Process parent(self(), child({"grandchild", file("grandchild.id")}), {.own_process_group = true});
  // Read until the id is there whole: the child renames its finished file into place, but
  // under Wine the name was once seen before the text could be read (CI, stop 37).
  std::string said;
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(20000);
  while ((said = read_text(dir_ / "grandchild.id")).empty() || said.back() != '\n') {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no whole id in " << file("grandchild.id");
    std::this_thread::sleep_for(milliseconds(5));
  }
  const std::int64_t grandchild = std::stoll(said);
  ASSERT_TRUE(alive(grandchild));
  parent.kill();
  EXPECT_EQ(parent.wait_for(milliseconds(10000)), 137);
  EXPECT_TRUE(gone_within(grandchild, milliseconds(5000))) << "grandchild " << grandchild << " outlived the kill";
}

TEST_F(ProcessTest, AMissingProgramIsNotFound) {
  const std::string missing = file("no such folder") + "/no-such-program";
  try {
    Process p(missing, {});
    FAIL() << "started " << missing;
  } catch (const ProcessStartError& e) {
    EXPECT_TRUE(e.program_not_found());
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  try {
    Process p("cosim-no-such-program-in-path", {});
    FAIL() << "started a program that does not exist";
  } catch (const ProcessStartError& e) {
    EXPECT_TRUE(e.program_not_found());
    EXPECT_NE(std::string(e.what()).find("cosim-no-such-program-in-path"), std::string::npos) << e.what();
  }
}

TEST_F(ProcessTest, AnOutputFileThatCannotBeOpenedIsNamed) {
  const std::string out = file("no such folder") + "/out.txt";
  try {
    Process p(self(), child({"exit", "0"}), {.stdout_file = out});
    FAIL() << "started with stdout to " << out;
  } catch (const ProcessStartError& e) {
    EXPECT_FALSE(e.program_not_found()) << "the program is there; its output file is not";
    EXPECT_NE(std::string(e.what()).find(out), std::string::npos) << e.what();
  }
}

TEST_F(ProcessTest, AWorkingFolderThatDoesNotExistIsNamed) {
  const std::string missing = file("not a folder");
  try {
    Process p(self(), child({"exit", "0"}), {.working_dir = missing});
    FAIL() << "started in " << missing;
  } catch (const ProcessStartError& e) {
    EXPECT_FALSE(e.program_not_found());
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args = cosim::platform::utf8_arguments(argc, argv);
  if (args.size() > 1 && args[1] == "--child") return child_main(args);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
