#include "cosim/platform/process.hpp"
#include "cosim/platform/console.hpp"

#include <windows.h>

#include <climits>
#include <filesystem>
#include <utility>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"

namespace cosim::platform {
namespace {

// Exit codes given to a child ended from here, as a POSIX signal would have set them.
constexpr UINT kExitKilled = 128 + 9;       // SIGKILL
constexpr UINT kExitTerminated = 128 + 15;  // SIGTERM
// A console program without a handler of its own ends with this on Ctrl-C / Ctrl-Break.
constexpr DWORD kStatusControlCExit = 0xC000013A;
constexpr int kExitInterrupted = 130;

HANDLE as_handle(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }

/// A kernel handle closed on scope exit.
struct Handle {
  HANDLE h = nullptr;
  Handle() = default;
  explicit Handle(HANDLE handle) : h(handle == INVALID_HANDLE_VALUE ? nullptr : handle) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (h != nullptr) CloseHandle(h);
  }
  HANDLE release() {
    HANDLE out = h;
    h = nullptr;
    return out;
  }
};

std::error_code last_error() { return {static_cast<int>(GetLastError()), std::system_category()}; }

[[noreturn]] void fail(const std::string& program, const std::string& why, std::error_code error,
                       bool not_found = false) {
  throw ProcessStartError("cannot start " + program + ": " + why, error, not_found);
}

std::wstring to_wide(const std::string& program, const std::string& text) {
  if (text.empty()) return {};
  if (text.size() > static_cast<std::size_t>(INT_MAX)) {
    fail(program, "an argument is too long", std::make_error_code(std::errc::argument_list_too_long));
  }
  const int size = static_cast<int>(text.size());
  const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(), size, nullptr, 0);
  if (n <= 0) fail(program, "'" + text + "' is not UTF-8 text", std::make_error_code(std::errc::illegal_byte_sequence));
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(), size, out.data(), n);
  return out;
}

/// Appends one argument so that the MSVCRT start-up code (and CommandLineToArgvW) reads it
/// back unchanged: quoted when empty or holding a blank or a quote; inside quotes a quote
/// is escaped, and backslashes are doubled only where they precede a quote.
void append_argument(std::wstring& line, const std::wstring& arg) {
  line += L' ';
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    line += arg;
    return;
  }
  line += L'"';
  std::size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    line.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
    backslashes = 0;
    line += c;
  }
  line.append(backslashes * 2, L'\\');  // before the closing quote
  line += L'"';
}

/// The command line: argv[0] in quotes (the start-up code takes it verbatim up to the next
/// quote; a Windows file name cannot hold one), then the quoted arguments.
std::wstring command_line(const std::string& program, const std::wstring& file, const std::vector<std::string>& args) {
  if (file.find(L'"') != std::wstring::npos) {
    fail(program, "a program name cannot hold '\"'", std::make_error_code(std::errc::invalid_argument));
  }
  std::wstring line = L"\"" + file + L"\"";
  for (const auto& arg : args) append_argument(line, to_wide(program, arg));
  return line;
}

/// Creates or truncates an output file as an inheritable handle for the child.
HANDLE open_output(const std::string& program, const std::string& path, const char* stream) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  const HANDLE h = CreateFileW(to_wide(program, path).c_str(), GENERIC_WRITE,
                               FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &inheritable, CREATE_ALWAYS,
                               FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    const auto error = last_error();
    fail(program, std::string("cannot open ") + path + " for its " + stream + ": " + error_text(error), error);
  }
  return h;
}

/// An inheritable copy of one of the parent's standard handles, or null if it has none.
HANDLE inheritable_std_handle(DWORD which) {
  const HANDLE h = GetStdHandle(which);
  if (h == nullptr || h == INVALID_HANDLE_VALUE) return nullptr;
  HANDLE copy = nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &copy, 0, TRUE, DUPLICATE_SAME_ACCESS)) {
    return nullptr;
  }
  return copy;
}

/// A job that kills its processes when its last handle closes: when the Process is
/// destroyed, or when this process ends in any way.
HANDLE make_kill_on_close_job(const std::string& program) {
  const HANDLE job = CreateJobObjectW(nullptr, nullptr);
  if (job == nullptr) fail(program, "cannot create a job object: " + error_text(last_error()), last_error());
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
    const auto error = last_error();
    CloseHandle(job);
    fail(program, "cannot set up a job object: " + error_text(error), error);
  }
  return job;
}

int exit_code_of(DWORD code) {
  return code == kStatusControlCExit ? kExitInterrupted : static_cast<int>(code);
}

}  // namespace

Process::Process(const std::string& program, const std::vector<std::string>& args, const ProcessOptions& options)
    : own_process_group_(options.own_process_group) {
  // A path is made absolute so that the child's working folder does not change its meaning;
  // a bare name is searched by CreateProcessW (the parent's folder, the current folder,
  // the system folders, PATH; ".exe" added).
  const bool bare_name = program.find_first_of("/\\") == std::string::npos;
  const std::wstring file =
      bare_name ? to_wide(program, program) : std::filesystem::absolute(path_from_utf8(program)).wstring();
  std::wstring line = command_line(program, file, args);

  std::wstring working_dir;
  if (!options.working_dir.empty()) {
    std::error_code ec;
    const auto dir = std::filesystem::absolute(path_from_utf8(options.working_dir), ec);
    if (ec || !std::filesystem::is_directory(dir, ec)) {
      fail(program, "working folder " + options.working_dir + " is not a folder",
           std::make_error_code(std::errc::not_a_directory));
    }
    working_dir = dir.wstring();
  }

  // The child's standard handles: the files asked for, else the parent's own. Exactly these
  // are inherited (PROC_THREAD_ATTRIBUTE_HANDLE_LIST), no other inheritable handle leaks.
  Handle in, stdin_write;
  if (options.stdin_pipe) {
    SECURITY_ATTRIBUTES inheritable{sizeof inheritable, nullptr, TRUE};
    if (!CreatePipe(&in.h, &stdin_write.h, &inheritable, 0)) {
      fail(program, "cannot make a pipe for its stdin: " + error_text(last_error()), last_error());
    }
    SetHandleInformation(stdin_write.h, HANDLE_FLAG_INHERIT, 0);  // only the read end is the child's
  } else {
    in.h = inheritable_std_handle(STD_INPUT_HANDLE);
  }
  Handle out(options.stdout_file.empty() ? inheritable_std_handle(STD_OUTPUT_HANDLE)
                                         : open_output(program, options.stdout_file, "stdout"));
  Handle err;
  const bool shared_file = !options.stderr_file.empty() && options.stderr_file == options.stdout_file;
  if (!shared_file) {
    err.h = options.stderr_file.empty() ? inheritable_std_handle(STD_ERROR_HANDLE)
                                        : open_output(program, options.stderr_file, "stderr");
  }
  const HANDLE err_handle = shared_file ? out.h : err.h;
  std::vector<HANDLE> inherited;
  for (const HANDLE h : {in.h, out.h, err.h}) {
    if (h != nullptr) inherited.push_back(h);  // each once: a repeated handle fails the call
  }

  STARTUPINFOEXW startup{};
  startup.StartupInfo.cb = sizeof startup;
  startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  startup.StartupInfo.hStdInput = in.h;
  startup.StartupInfo.hStdOutput = out.h;
  startup.StartupInfo.hStdError = err_handle;
  std::vector<unsigned char> attribute_buffer;
  if (!inherited.empty()) {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    attribute_buffer.resize(size);
    startup.lpAttributeList = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attribute_buffer.data());
    if (!InitializeProcThreadAttributeList(startup.lpAttributeList, 1, 0, &size) ||
        !UpdateProcThreadAttribute(startup.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherited.data(),
                                   inherited.size() * sizeof(HANDLE), nullptr, nullptr)) {
      fail(program, "cannot list the handles it inherits: " + error_text(last_error()), last_error());
    }
  }

  Handle job(make_kill_on_close_job(program));
  // Suspended until it is in the job, so nothing it starts can escape the job. Its own
  // console process group, so that terminate() can address a Ctrl-Break to it alone.
  const DWORD flags = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT |
                      (startup.lpAttributeList != nullptr ? EXTENDED_STARTUPINFO_PRESENT : 0);
  PROCESS_INFORMATION created{};
  const BOOL ok = CreateProcessW(nullptr, line.data(), nullptr, nullptr, inherited.empty() ? FALSE : TRUE, flags,
                                 nullptr, working_dir.empty() ? nullptr : working_dir.c_str(),
                                 &startup.StartupInfo, &created);
  const auto create_error = last_error();
  if (startup.lpAttributeList != nullptr) DeleteProcThreadAttributeList(startup.lpAttributeList);
  if (!ok) {
    const DWORD code = static_cast<DWORD>(create_error.value());
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
      fail(program, bare_name ? "not found in PATH" : "no such file", create_error, true);
    }
    fail(program, error_text(create_error), create_error);
  }
  Handle process(created.hProcess);
  Handle thread(created.hThread);
  if (!AssignProcessToJobObject(job.h, process.h)) {
    // Without the job a child could outlive us: say so rather than run it unguarded.
    const auto error = last_error();
    TerminateProcess(process.h, kExitKilled);
    fail(program, "cannot put it in a job object: " + error_text(error), error);
  }
  ResumeThread(thread.h);
  id_ = static_cast<std::int64_t>(created.dwProcessId);
  handle_ = reinterpret_cast<std::intptr_t>(process.release());
  if (options.stdin_pipe) stdin_ = reinterpret_cast<std::intptr_t>(stdin_write.release());  // `in` closes: the child has it
  job_ = reinterpret_cast<std::intptr_t>(job.release());
}

Process::~Process() {
  close_stdin();
  if (handle_ == 0) return;
  if (!exit_code_) {
    kill();
    WaitForSingleObject(as_handle(handle_), INFINITE);
  }
  CloseHandle(as_handle(handle_));
  CloseHandle(as_handle(job_));  // kills whatever the child started and left running
}

std::optional<int> Process::wait_for(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  const auto count = timeout.count();
  const DWORD ms = count <= 0 ? 0 : count >= INFINITE ? INFINITE - 1 : static_cast<DWORD>(count);
  const DWORD r = WaitForSingleObject(as_handle(handle_), ms);
  if (r == WAIT_TIMEOUT) return std::nullopt;
  DWORD code = 0;
  if (r != WAIT_OBJECT_0 || !GetExitCodeProcess(as_handle(handle_), &code)) {
    throw std::system_error(last_error(), "cannot wait for process " + std::to_string(id_));
  }
  exit_code_ = exit_code_of(code);
  return exit_code_;
}

int Process::wait() {
  for (;;) {
    if (const auto code = wait_for(std::chrono::milliseconds(INFINITE - 1))) return *code;
  }
}

bool Process::terminate() noexcept {
  if (exit_code_ || handle_ == 0 || WaitForSingleObject(as_handle(handle_), 0) == WAIT_OBJECT_0) return true;
  // Ctrl-Break, not Ctrl-C: Ctrl-C cannot be sent to one group only. It reaches the child
  // only through a console we share; without one (or under Wine, which does not deliver
  // it), a child that installed an interrupt handler also listens on its stop event
  // (console.hpp). Anything else is ended, as the last resort.
  if (GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(id_))) return true;
  if (signal_stop_event(static_cast<unsigned long>(id_))) return true;
  TerminateJobObject(as_handle(job_), kExitTerminated);
  return false;
}

std::error_code Process::write_stdin(std::span<const std::byte> bytes) noexcept {
  if (stdin_ == -1) return std::make_error_code(std::errc::broken_pipe);
  while (!bytes.empty()) {
    const DWORD chunk = bytes.size() > (1u << 30) ? (1u << 30) : static_cast<DWORD>(bytes.size());
    DWORD written = 0;
    if (!WriteFile(as_handle(stdin_), bytes.data(), chunk, &written, nullptr)) {
      const DWORD error = GetLastError();
      if (error == ERROR_BROKEN_PIPE || error == ERROR_NO_DATA) return std::make_error_code(std::errc::broken_pipe);
      return {static_cast<int>(error), std::system_category()};
    }
    bytes = bytes.subspan(written);
  }
  return {};
}

void Process::close_stdin() noexcept {
  if (stdin_ != -1) CloseHandle(as_handle(std::exchange(stdin_, -1)));
}

void Process::kill() noexcept {
  if (exit_code_ || handle_ == 0) return;
  TerminateJobObject(as_handle(job_), kExitKilled);  // the child and whatever it started
}

std::string crash_description(int exit_code) {
  // NTSTATUS exception codes a process ends with when nothing handles the fault.
  static constexpr std::pair<DWORD, const char*> kFaults[] = {
      {0xC0000005, "access violation"}, {0xC00000FD, "stack overflow"}, {0xC000001D, "illegal instruction"},
      {0xC0000094, "integer division by zero"}, {0xC0000409, "stack buffer overrun"}, {0x80000003, "breakpoint"}};
  for (const auto& [status, name] : kFaults) {
    if (static_cast<DWORD>(exit_code) == status) return std::string("a crash (") + name + ")";
  }
  return {};
}

}  // namespace cosim::platform
