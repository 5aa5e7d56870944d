#pragma once
/// \file
/// The console: is stderr a terminal, the interrupts a user sends (Ctrl-C, a terminal's
/// hang-up, SIGTERM / Ctrl-Break, closing the console window), and leaving at once.

#include <string>
#include <vector>

namespace cosim::platform {

/// True when stderr is an interactive terminal (progress lines only then).
bool stderr_is_terminal() noexcept;
/// True when stdin is an interactive terminal: a person started the program (a window then
/// stays open after the run).
bool stdin_is_terminal() noexcept;

/// Calls `on_interrupt` for every interrupt: SIGINT, SIGTERM and SIGHUP on POSIX (no
/// SA_RESTART, so blocking calls see EINTR), Ctrl-C, Ctrl-Break and console close on Windows
/// (where it runs on a thread the system starts). `on_interrupt` must be async-signal-safe.
/// Also makes a vanished peer and a file size limit errors instead of deaths (SIGPIPE and
/// SIGXFSZ ignored; nothing to do on Windows).
/// On Windows the handler also runs when another process signals this one's stop event
/// (signal_stop_event): a console event reaches only processes sharing a console, this
/// reaches any.
void install_interrupt_handler(void (*on_interrupt)() noexcept);

/// Windows: signals the stop event of process `pid`, as an interrupt would. False when it has
/// none (not a cosim program, or no handler installed yet). POSIX: false (signals do this).
bool signal_stop_event(unsigned long pid) noexcept;

/// Ends the process now with `code`, without destructors or atexit handlers
/// (async-signal-safe; _exit / TerminateProcess).
[[noreturn]] void exit_now(int code) noexcept;

/// The program's arguments as UTF-8 strings (on Windows from the wide command line: argv
/// there is in the ANSI code page; on POSIX argv as it is).
std::vector<std::string> utf8_arguments(int argc, char** argv);

}  // namespace cosim::platform
