#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cosim/v1/cosim.pb.h"
#include "cosim/wire/channel.hpp"
#include "cosim/wire/cosimlog.hpp"
#include "cosim/wire/message_stream.hpp"

namespace cosim::protocol {

/// One peer-to-peer session over a Channel: framed Envelopes, each one recorded (when a
/// log is given) exactly as it crossed the wire, and channel failures turned into the
/// errors that end a process (util::PeerError, util::InterruptedError) with context.
class Connection {
 public:
  /// outgoing: direction of what this side sends (to_visual for the dynamics).
  Connection(std::unique_ptr<wire::Channel> channel, wire::Direction outgoing, wire::CosimLogWriter* log);

  /// Sends or throws PeerError("... while sending Frame 17: peer closed fifo:/tmp/x").
  void send(const v1::Envelope& envelope, std::chrono::milliseconds timeout);
  /// Receives one envelope. Returns false on timeout; timeout 0 polls. Throws PeerError for a
  /// closed peer or a bad frame, InterruptedError after a stop signal.
  bool receive(v1::Envelope& envelope, std::chrono::milliseconds timeout);
  /// True if a message (or the peer's close) is waiting.
  bool readable_now() { return channel_->readable_now(); }
  /// Best effort: tells the peer why this side stops. Never throws.
  void send_error_noexcept(v1::ErrorCode code, const std::string& message) noexcept;
  /// Best effort Bye. Never throws.
  void send_bye_noexcept(const std::string& reason, std::uint64_t frames_handled) noexcept;
  /// Context for error messages, e.g. "at frame 17".
  void set_context(std::string context) { context_ = std::move(context); }
  std::string describe() const { return channel_->describe(); }
  wire::Channel& channel() { return *channel_; }

 private:
  [[noreturn]] void fail(std::error_code ec, const std::string& doing);
  /// After a failed send to a closed peer: throws the peer's own Error or Bye if it left one.
  void explain_close();
  std::unique_ptr<wire::Channel> channel_;
  wire::MessageStream stream_;
  wire::Direction outgoing_;
  wire::Direction incoming_;
  wire::CosimLogWriter* log_;
  std::string context_;
};

/// Turns a peer's Error message into the exception that ends this process:
/// VERSION_MISMATCH -> VersionMismatchError, JOINT_MISMATCH/BAD_INPUT -> BadInputError,
/// anything else -> PeerError. The message names the peer.
[[noreturn]] void throw_peer_error(const v1::Error& error, const std::string& peer);

/// The ErrorCode that tells the peer about an exit code of ours.
v1::ErrorCode error_code_for_exit(int exit_code) noexcept;

}  // namespace cosim::protocol
