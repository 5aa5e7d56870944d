#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cosim::test {

/// A real child process (fork + execv) with stdout and stderr captured to files, for
/// integration tests that run the real executables.
/// How a child Process starts, beyond its arguments.
struct ProcessSetup {
  bool own_process_group = false;        ///< setpgid(0, 0): signal it as a terminal would (kill_group)
  std::optional<rlim_t> file_size_limit;  ///< RLIMIT_FSIZE [bytes]: a disk that fills, without root
};

class Process {
 public:
  using Setup = ProcessSetup;
  Process(const std::filesystem::path& exe, std::vector<std::string> args, const std::filesystem::path& log_prefix,
          Setup setup = {});
  ~Process();  // kills (SIGKILL) and reaps a child still running
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  /// Exit code (128 + signal when killed by a signal), or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  void kill(int signal);
  /// Signals the child's whole process group (needs Setup::own_process_group), as a terminal's
  /// Ctrl-C does.
  void kill_group(int signal);
  bool running();
  std::string out() const;  ///< captured stdout
  std::string err() const;  ///< captured stderr
  /// Peak resident set size of the child [KiB], valid after wait().
  long max_rss_kib() const { return max_rss_kib_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  long max_rss_kib_ = 0;
  std::filesystem::path out_path_, err_path_;
};

std::string read_file(const std::filesystem::path& path);

/// A fresh empty directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Parsed CSV with a header row, numeric cells.
struct Csv {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  int column(const std::string& name) const;  ///< index, or -1
  std::vector<double> values(const std::string& name) const;
};
Csv read_csv(const std::filesystem::path& path);

}  // namespace cosim::test
