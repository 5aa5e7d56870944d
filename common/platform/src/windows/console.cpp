#include "cosim/platform/console.hpp"

#include <windows.h>
#include <io.h>
#include <shellapi.h>

#include <cstdio>

namespace cosim::platform {
namespace {

void (*g_on_interrupt)() noexcept = nullptr;

// Runs on a thread the system starts for each console event.
BOOL WINAPI on_console_event(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
      g_on_interrupt();
      return TRUE;  // handled: the process goes on and stops cleanly
    case CTRL_CLOSE_EVENT:
      // The window is closing: the system ends the process when this returns (or after
      // 5 s). Give the clean stop that time.
      g_on_interrupt();
      Sleep(4000);
      return TRUE;
    default:
      return FALSE;
  }
}

/// "Local\\cosim-stop-<pid>": per session, so only processes of this logon can reach it.
std::wstring stop_event_name(unsigned long pid) { return L"Local\\cosim-stop-" + std::to_wstring(pid); }

// Waits on this process's stop event for its lifetime; each signal is one interrupt.
DWORD WINAPI stop_event_thread(void* event) {
  while (WaitForSingleObject(static_cast<HANDLE>(event), INFINITE) == WAIT_OBJECT_0) g_on_interrupt();
  return 0;
}

std::string to_utf8(const wchar_t* text) {
  const int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return {};
  std::string out(static_cast<std::size_t>(n - 1), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, -1, out.data(), n, nullptr, nullptr);
  return out;
}

}  // namespace

bool stderr_is_terminal() noexcept { return _isatty(_fileno(stderr)) != 0; }
bool stdin_is_terminal() noexcept { return _isatty(_fileno(stdin)) != 0; }

void install_interrupt_handler(void (*on_interrupt)() noexcept) {
  g_on_interrupt = on_interrupt;
  SetConsoleCtrlHandler(on_console_event, TRUE);
  // Auto-reset: one SetEvent, one interrupt. Left open until the process ends.
  const HANDLE event = CreateEventW(nullptr, FALSE, FALSE, stop_event_name(GetCurrentProcessId()).c_str());
  if (event != nullptr) {
    const HANDLE thread = CreateThread(nullptr, 0, stop_event_thread, event, 0, nullptr);
    if (thread != nullptr) CloseHandle(thread);
  }
}

bool signal_stop_event(unsigned long pid) noexcept {
  const HANDLE event = OpenEventW(EVENT_MODIFY_STATE, FALSE, stop_event_name(pid).c_str());
  if (event == nullptr) return false;
  const bool ok = SetEvent(event) != 0;
  CloseHandle(event);
  return ok;
}

void exit_now(int code) noexcept {
  TerminateProcess(GetCurrentProcess(), static_cast<UINT>(code));
  for (;;) {
  }
}

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int n = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &n);
  if (wide == nullptr) return {argv, argv + argc};
  std::vector<std::string> args;
  args.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) args.push_back(to_utf8(wide[i]));
  LocalFree(wide);
  return args;
}

}  // namespace cosim::platform
