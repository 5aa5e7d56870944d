#pragma once

namespace cosim::protocol {

/// SIGINT, SIGTERM and SIGHUP ask for a clean stop (wire::request_stop(): blocking channel
/// waits return `interrupted`, frame loops end, logs are flushed, FIFOs removed). A second
/// signal unlinks the registered FIFOs and exits at once with 130. SIGPIPE is ignored.
void install_stop_signal_handlers();

}  // namespace cosim::protocol
