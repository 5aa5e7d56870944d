#include "cosim/platform/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"

extern char** environ;

namespace cosim::platform {
namespace {

using std::chrono::milliseconds;

std::error_code posix_error(int number) { return {number, std::generic_category()}; }

/// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct FileActions {
  posix_spawn_file_actions_t actions;
  FileActions() { posix_spawn_file_actions_init(&actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions); }
};

struct SpawnAttributes {
  posix_spawnattr_t attributes;
  SpawnAttributes() { posix_spawnattr_init(&attributes); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attributes); }
};

[[noreturn]] void fail(const std::string& program, const std::string& why, int number, bool not_found = false) {
  throw ProcessStartError("cannot start " + program + ": " + why, posix_error(number), not_found);
}

/// Opens an output file in the parent (close-on-exec; the child gets a dup2 of it), so that a
/// bad path is reported as such, not as a program that cannot be executed.
void open_output(const std::string& program, const std::string& path, const char* stream, Fd& out) {
  out.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);  // not through a link
  if (out.fd < 0) {
    const int number = errno;
    fail(program, std::string("cannot open ") + path + " for its " + stream + ": " + error_text(posix_error(number)),
         number);
  }
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

Process::Process(const std::string& program, const std::vector<std::string>& args, const ProcessOptions& options)
    : own_process_group_(options.own_process_group) {
  // A path is made absolute so that the child's working folder does not change its meaning;
  // a bare name is looked up in PATH (posix_spawnp).
  const bool bare_name = program.find('/') == std::string::npos;
  const std::string file = bare_name ? program : utf8(std::filesystem::absolute(path_from_utf8(program)));

  FileActions actions;
  Fd out, err;
  if (!options.stdout_file.empty()) {
    open_output(program, options.stdout_file, "stdout", out);
    posix_spawn_file_actions_adddup2(&actions.actions, out.fd, STDOUT_FILENO);
  }
  if (!options.stderr_file.empty()) {
    if (options.stderr_file == options.stdout_file) {
      posix_spawn_file_actions_adddup2(&actions.actions, out.fd, STDERR_FILENO);
    } else {
      open_output(program, options.stderr_file, "stderr", err);
      posix_spawn_file_actions_adddup2(&actions.actions, err.fd, STDERR_FILENO);
    }
  }
  Fd stdin_read, stdin_write;
  if (options.stdin_pipe) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) fail(program, "cannot make a pipe for its stdin", errno);
    stdin_read.fd = fds[0];
    stdin_write.fd = fds[1];
    posix_spawn_file_actions_adddup2(&actions.actions, stdin_read.fd, STDIN_FILENO);
    // A child that goes away must be an error code from write_stdin(), not our death.
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
  }
  if (!options.working_dir.empty()) {
    // Checked here: a failed chdir in the child would read as "no such program".
    std::error_code ec;
    if (!std::filesystem::is_directory(path_from_utf8(options.working_dir), ec)) {
      fail(program, "working folder " + options.working_dir + " is not a folder", ENOTDIR);
    }
    posix_spawn_file_actions_addchdir_np(&actions.actions, options.working_dir.c_str());
  }

  SpawnAttributes attributes;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t no_signals, defaults;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attributes.attributes, &no_signals);
  // install_interrupt_handler ignores these in the parent, and an ignored signal stays
  // ignored across exec: give the child the default a program expects.
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGXFSZ);
  posix_spawnattr_setsigdefault(&attributes.attributes, &defaults);
  if (options.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attributes.attributes, 0);  // a new group led by the child
  }
  posix_spawnattr_setflags(&attributes.attributes, flags);

  std::vector<std::string> argv_text;
  argv_text.reserve(args.size() + 1);
  argv_text.push_back(program);
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // The parent's environment, with kStopWithParentVariable set to this process for a child
  // that is to stop with it (and never passed on otherwise).
  std::vector<std::string> env_text;
  const std::string stop_prefix = std::string(kStopWithParentVariable) + "=";
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).starts_with(stop_prefix)) continue;
    env_text.emplace_back(*e);
  }
  if (options.stop_with_parent) env_text.push_back(stop_prefix + std::to_string(::getpid()));
  std::vector<char*> envp;
  for (auto& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);

  // glibc's posix_spawn returns only after the exec (or with the exec's error), so the
  // child is in its group before anyone can signal it.
  pid_t pid = -1;
  const int error = bare_name ? ::posix_spawnp(&pid, file.c_str(), &actions.actions, &attributes.attributes,
                                               argv.data(), envp.data())
                              : ::posix_spawn(&pid, file.c_str(), &actions.actions, &attributes.attributes,
                                              argv.data(), envp.data());
  if (error == ENOENT) fail(program, bare_name ? "not found in PATH" : "no such file", error, true);
  if (error != 0) fail(program, error_text(posix_error(error)), error);
  id_ = pid;
  if (options.stdin_pipe) stdin_ = std::exchange(stdin_write.fd, -1);  // the read end closes here: the child has it
}

Process::~Process() {
  close_stdin();
  if (exit_code_ || id_ <= 0) return;
  kill();
  try {
    (void)wait();
  } catch (const std::exception&) {
    // Reaped by someone else: nothing left to do.
  }
}

std::optional<int> Process::wait_for(milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  milliseconds pause(1);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(static_cast<pid_t>(id_), &status, WNOHANG);
    if (r == static_cast<pid_t>(id_)) {
      exit_code_ = exit_code_of(status);
      return exit_code_;
    }
    if (r < 0 && errno != EINTR) {
      throw std::system_error(errno, std::generic_category(), "cannot wait for process " + std::to_string(id_));
    }
    // No portable way to wait for a child with a timeout: poll, quickly at first.
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, milliseconds(10));
  }
}

int Process::wait() {
  if (exit_code_) return *exit_code_;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(static_cast<pid_t>(id_), &status, 0);
    if (r == static_cast<pid_t>(id_)) {
      exit_code_ = exit_code_of(status);
      return *exit_code_;
    }
    if (r < 0 && errno != EINTR) {
      throw std::system_error(errno, std::generic_category(), "cannot wait for process " + std::to_string(id_));
    }
  }
}

bool Process::terminate() noexcept {
  // Once reaped, the pid may belong to someone else: never signal it then.
  if (exit_code_ || id_ <= 0) return true;
  ::kill(own_process_group_ ? -static_cast<pid_t>(id_) : static_cast<pid_t>(id_), SIGTERM);
  return true;
}

std::error_code Process::write_stdin(std::span<const std::byte> bytes) noexcept {
  if (stdin_ < 0) return std::make_error_code(std::errc::broken_pipe);
  while (!bytes.empty()) {
    const ssize_t n = ::write(static_cast<int>(stdin_), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? posix_error(errno) : std::make_error_code(std::errc::broken_pipe);
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return {};
}

void Process::close_stdin() noexcept {
  if (stdin_ >= 0) ::close(static_cast<int>(std::exchange(stdin_, -1)));
}

void Process::kill() noexcept {
  if (exit_code_ || id_ <= 0) return;
  ::kill(own_process_group_ ? -static_cast<pid_t>(id_) : static_cast<pid_t>(id_), SIGKILL);
}

std::string crash_description(int exit_code) {
  static constexpr std::pair<int, const char*> kFaults[] = {
      {SIGILL, "SIGILL"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGSEGV, "SIGSEGV"}};
  for (const auto& [signal, name] : kFaults) {
    if (exit_code == 128 + signal) return std::string("a crash (") + name + ")";
  }
  return {};
}

}  // namespace cosim::platform
