#pragma once

namespace cosim::protocol {

/// Interrupts (SIGINT, SIGTERM, SIGHUP; on Windows Ctrl-C, Ctrl-Break, console close) ask
/// for a clean stop (wire::request_stop(): blocking channel waits return `interrupted`, frame
/// loops end, logs are flushed, channel files removed). A second interrupt within 2 s is the
/// same stop; a later or a third one unlinks the registered FIFOs and exits at once with 130.
/// SIGPIPE and SIGXFSZ are ignored (platform::install_interrupt_handler).
void install_stop_signal_handlers();

}  // namespace cosim::protocol
