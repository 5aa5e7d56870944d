#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace cosim::util {

/// Line-oriented event log of one process (dynamics.log, recorder.log). Each line is
/// stamped with wall-clock seconds since the log opened and flushed at once, so a log is
/// complete up to the last event even when the process is killed. Not for per-frame data.
/// Thread-safe: a channel's own thread may log too.
class EventLog {
 public:
  /// program: prefix of stderr lines ("cosim-dynamics"). An empty path logs to stderr only.
  EventLog(std::string program, const std::filesystem::path& path, bool echo_info_to_stderr);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  void info(std::string_view message);
  void warn(std::string_view message);
  /// Written to the log and, always, as one line "program: error: message" on stderr.
  void error(std::string_view message);
  /// For the user's eyes only (a session token): one line "program: message" on stderr,
  /// never written to the log file.
  void secret(std::string_view message);
  void set_echo(bool echo) { echo_ = echo; }

 private:
  void write(std::string_view level, std::string_view message, bool to_stderr);
  std::string program_;
  std::FILE* file_ = nullptr;
  bool echo_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;  // one line at a time from any thread
};

}  // namespace cosim::util
