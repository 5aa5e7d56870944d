#include "cosim/protocol/connection.hpp"

#include "cosim/protocol/version.hpp"
#include "cosim/util/clock.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"
#include "cosim/wire/errors.hpp"

namespace cosim::protocol {

Connection::Connection(std::unique_ptr<wire::Channel> channel, wire::Direction outgoing, wire::CosimLogWriter* log)
    : channel_(std::move(channel)),
      stream_(*channel_),
      outgoing_(outgoing),
      incoming_(outgoing == wire::Direction::to_visual ? wire::Direction::to_dynamics : wire::Direction::to_visual),
      log_(log) {}

void Connection::fail(std::error_code ec, const std::string& doing) {
  std::string where = doing;
  if (!context_.empty()) where += " " + context_;
  if (ec == wire::Errc::interrupted) throw util::InterruptedError("interrupted " + where);
  if (ec == wire::Errc::peer_closed) {
    throw util::PeerError("peer closed " + channel_->describe() + " " + where + " (the other process ended or was killed)");
  }
  throw util::PeerError(where + " on " + channel_->describe() + ": " + ec.message());
}

void Connection::send(const v1::Envelope& envelope, std::chrono::milliseconds timeout) {
  if (const std::error_code ec = stream_.send(envelope, timeout)) {
    if (ec == wire::Errc::peer_closed) explain_close();
    fail(ec, std::string("while sending ") + body_name(envelope));
  }
  if (log_ != nullptr) log_->append(outgoing_, util::steady_ns(), stream_.last_sent_bytes());
}

bool Connection::receive(v1::Envelope& envelope, std::chrono::milliseconds timeout) {
  if (const std::error_code ec = stream_.receive(envelope, timeout)) {
    if (ec == wire::Errc::timeout) return false;
    fail(ec, "while receiving");
  }
  if (log_ != nullptr) log_->append(incoming_, util::steady_ns(), stream_.last_received_bytes());
  return true;
}

void Connection::explain_close() {
  // The peer may have said why before it closed: its Error or Bye is still in our pipe.
  v1::Envelope last;
  while (!stream_.receive(last, std::chrono::milliseconds(0))) {
    if (log_ != nullptr) log_->append(incoming_, util::steady_ns(), stream_.last_received_bytes());
    if (last.has_error()) throw_peer_error(last.error(), "peer");
    if (last.has_bye()) {
      std::string where = context_.empty() ? "" : " " + context_;
      throw util::PeerError("peer ended the session" + where + " (Bye: " + util::printable(last.bye().reason()) + ")");
    }
  }
}

void Connection::send_error_noexcept(v1::ErrorCode code, const std::string& message) noexcept {
  try {
    v1::Envelope envelope;
    envelope.mutable_error()->set_code(code);
    envelope.mutable_error()->set_message(message);
    if (!stream_.send(envelope, std::chrono::milliseconds(500)) && log_ != nullptr) {
      log_->append(outgoing_, util::steady_ns(), stream_.last_sent_bytes());
    }
  } catch (...) {
    // The peer may be gone; this side's own error report is what matters.
  }
}

void Connection::send_bye_noexcept(const std::string& reason, std::uint64_t frames_handled) noexcept {
  try {
    v1::Envelope envelope;
    envelope.mutable_bye()->set_reason(reason);
    envelope.mutable_bye()->set_frames_handled(frames_handled);
    if (!stream_.send(envelope, std::chrono::milliseconds(500)) && log_ != nullptr) {
      log_->append(outgoing_, util::steady_ns(), stream_.last_sent_bytes());
    }
  } catch (...) {
  }
}

void throw_peer_error(const v1::Error& error, const std::string& peer) {
  // A peer's words: one printable line, capped (docs/protocol.md §7).
  const std::string message = peer + " reported: " + util::printable(error.message());
  switch (error.code()) {
    case v1::ERROR_CODE_VERSION_MISMATCH: throw util::VersionMismatchError(message);
    case v1::ERROR_CODE_JOINT_MISMATCH:
    case v1::ERROR_CODE_BAD_INPUT: throw util::BadInputError(message);
    default: throw util::PeerError(message);
  }
}

v1::ErrorCode error_code_for_exit(int exit_code) noexcept {
  switch (exit_code) {
    case util::kExitBadInput: return v1::ERROR_CODE_BAD_INPUT;
    case util::kExitVersionMismatch: return v1::ERROR_CODE_VERSION_MISMATCH;
    case util::kExitInterrupted: return v1::ERROR_CODE_INTERRUPTED;
    case util::kExitPeerFailure: return v1::ERROR_CODE_PROTOCOL;
    default: return v1::ERROR_CODE_INTERNAL;
  }
}

}  // namespace cosim::protocol
