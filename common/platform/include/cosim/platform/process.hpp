#pragma once
/// \file
/// Child processes: start a program with arguments (stdout / stderr to files, a working
/// folder, its own process group), wait for it with a timeout, ask it to stop, kill it.
/// Text at this interface is UTF-8: the program, its arguments and the paths.
///
/// Stopping. terminate() asks for a clean stop the way a user's interrupt would: SIGTERM on
/// POSIX, a console Ctrl-Break on Windows (the child sees it through
/// install_interrupt_handler in both cases); kill() ends it at once.
///
/// Process groups and a terminal's Ctrl-C.
/// - POSIX: by default the child stays in the parent's process group, so a terminal's Ctrl-C
///   (SIGINT to the foreground group) reaches it directly, as it reaches the parent;
///   `own_process_group` makes it lead a group of its own, which then receives signals only
///   through the parent (terminate() and kill() then signal the whole group).
/// - Windows: every child gets its own console process group (CREATE_NEW_PROCESS_GROUP),
///   whatever `own_process_group` says, because a Ctrl-Break can only be addressed to a
///   group; the system disables Ctrl-C in such a child, so the console's Ctrl-C reaches only
///   the parent. Every child is also put in a job object that kills it, and whatever it
///   started, when the job's last handle closes: when its Process is destroyed or the parent
///   dies, however it dies, no child is left behind.
/// A parent that forwards each interrupt it gets with terminate() therefore stops its
/// children cleanly on both systems (on POSIX they may see the terminal's SIGINT and the
/// forwarded SIGTERM: cosim programs take two signals within 2 s as one request).

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace cosim::platform {

/// How a child starts, beyond its program and arguments. Empty strings: as the parent.
struct ProcessOptions {
  std::string working_dir{};  ///< the child's current folder (UTF-8); must exist
  std::string stdout_file{};  ///< created or truncated; the parent's stdout when empty
  std::string stderr_file{};  ///< created or truncated (may equal stdout_file); the parent's stderr when empty
  bool own_process_group = false;  ///< POSIX: lead a new process group (see the file comment)
  bool stdin_pipe = false;  ///< the child reads what write_stdin() writes (else the parent's stdin)
  /// The child is interrupted when the parent dies, however it dies (a SIGKILL too), and
  /// stops cleanly. POSIX (Linux): the child's environment names the parent
  /// (kStopWithParentVariable) and a cosim program's install_interrupt_handler asks the
  /// kernel for a SIGTERM at the parent's death. Windows: always so (the job object kills).
  bool stop_with_parent = false;
};

/// The environment variable through which stop_with_parent reaches a POSIX child: the
/// parent's pid. Read (and removed, so grandchildren do not inherit it) by
/// install_interrupt_handler.
inline constexpr const char* kStopWithParentVariable = "COSIM_STOP_WITH_PARENT";

/// A program that could not be started. what() is one line naming it and saying why.
class ProcessStartError : public std::runtime_error {
 public:
  ProcessStartError(const std::string& message, std::error_code error, bool program_not_found)
      : std::runtime_error(message), error_(error), program_not_found_(program_not_found) {}
  std::error_code error() const noexcept { return error_; }
  /// True when no such program exists (not found in PATH, or no such file).
  bool program_not_found() const noexcept { return program_not_found_; }

 private:
  std::error_code error_;
  bool program_not_found_;
};

/// A running child process, owned: destroying a Process whose child still runs kills it
/// (kill()) and reaps it. Use from one thread.
class Process {
 public:
  /// Starts `program` with `args` (argv[1]...; the child's argv[0] names `program`). A program
  /// with a folder in its name is that file (relative to the parent's current folder, not
  /// the child's working_dir); a bare name is searched in PATH (on Windows also the
  /// parent's own folder and the system folders, ".exe" added). Throws ProcessStartError.
  Process(const std::string& program, const std::vector<std::string>& args, const ProcessOptions& options = {});
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  /// The system's id of the child (pid).
  std::int64_t id() const noexcept { return id_; }

  /// Waits at most `timeout` for the child to end. Its exit code (128 + signal number when a
  /// POSIX signal ended it), or nullopt while it still runs.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  /// Waits for the child to end; its exit code as wait_for's.
  int wait();
  /// True while the child runs (it is reaped as soon as it is seen to have ended).
  bool running() { return !wait_for(std::chrono::milliseconds(0)).has_value(); }

  /// Asks the child to stop cleanly: SIGTERM (to its group if it has its own), or a
  /// Ctrl-Break to its console process group. Where a Ctrl-Break cannot be delivered (a
  /// parent without a console; Wine), the child is ended as by kill() but with exit code 143
  /// (128 + SIGTERM), as the last resort, and this returns false; true otherwise. Nothing
  /// once the child has been reaped.
  bool terminate() noexcept;
  /// With ProcessOptions::stdin_pipe: writes all of `bytes` to the child's stdin, blocking
  /// while its pipe is full. A child that closed its stdin or ended is
  /// std::errc::broken_pipe (never a SIGPIPE death). Use from one thread.
  std::error_code write_stdin(std::span<const std::byte> bytes) noexcept;
  /// Closes the child's stdin: it reads end of file. Idempotent.
  void close_stdin() noexcept;

  /// Ends the child now: SIGKILL (to its group if it has its own; exit code 137), or
  /// TerminateJobObject (the child and whatever it started; exit code 137).
  void kill() noexcept;

 private:
  std::int64_t id_ = -1;
  std::intptr_t handle_ = 0;  // Windows: the process HANDLE
  std::intptr_t job_ = 0;     // Windows: the job object HANDLE
  std::intptr_t stdin_ = -1;  // the write end of the child's stdin pipe: fd, or HANDLE on Windows
  bool own_process_group_ = false;
  std::optional<int> exit_code_;
};

/// "a crash (SIGSEGV)" when `exit_code` (Process::wait's) says a fault ended the child: a
/// POSIX fault signal (SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV), a Windows exception status
/// (access violation, stack overflow, …); "" otherwise.
std::string crash_description(int exit_code);

}  // namespace cosim::platform
