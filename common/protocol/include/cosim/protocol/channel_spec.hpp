#pragma once
/// \file
/// The channel factory: `--channel` values parsed against one closed table of channel kinds,
/// and the one place that opens a concrete channel. Everything else sees wire::Channel.
/// Adding a kind: its wire files, an adapter in src/channel_kind_<name>.cpp, one line in
/// the table (src/channel_spec.cpp); the conformance suite then runs on it unchanged.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "cosim/wire/channel.hpp"

namespace cosim::protocol {

/// Which end of a channel a process opens: the dynamics creates/listens, the visual side connects.
enum class ChannelRole { dynamics = 1, visual };

/// A parsed --channel value: kind "none", "fifo", "mem", "pipe", "shm" or "tcp".
struct ChannelSpec {
  std::string kind;     ///< "none", "fifo", "mem", ...
  std::string address;  ///< after the colon: the FIFO folder, the mem name, ...
  std::string text;     ///< as given, for messages
  bool none() const { return kind == "none"; }
};

/// Receives the lines the user should see while a channel opens or lives (a tcp: session
/// token, a refused peer); see wire::NoticeSink.
using ChannelNotice = wire::NoticeSink;

}  // namespace cosim::protocol

namespace cosim::util {
class EventLog;
}

namespace cosim::protocol {

/// Channel notices into a program's event log: info and warnings logged (warnings also on
/// stderr), secrets on stderr only. The log must outlive the channel.
ChannelNotice notices_to(util::EventLog& log);

/// One row of the closed table of channel kinds (see channel_kinds()).
struct ChannelKind {
  std::string_view name;         ///< before the colon: "fifo", "mem", ...
  std::string_view usage;        ///< the form users type, e.g. "fifo:DIR"
  std::string_view help;         ///< one line for --help
  std::string_view unavailable;  ///< "" when usable in this build, else why not ("is Windows only")
  /// Throws util::BadInputError if `address` is not valid for this kind (`text`: the whole
  /// value, for the message). Null when unavailable.
  void (*check_address)(std::string_view address, const std::string& text);
  /// Opens the dynamics end of `spec`, waiting up to open_timeout for the visual end.
  /// Throws wire::ChannelSetupError. Null when unavailable.
  std::unique_ptr<wire::Channel> (*open_dynamics)(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                                  const ChannelNotice& notice);
  /// Opens the visual end of `spec`, waiting up to open_timeout for the dynamics end.
  /// Throws wire::ChannelSetupError. Null when unavailable.
  std::unique_ptr<wire::Channel> (*open_visual)(const ChannelSpec& spec, std::chrono::milliseconds open_timeout,
                                                const ChannelNotice& notice);
  /// An address no one else uses, unique per `tag`, with any files it needs under
  /// `scratch_dir` (a private folder that exists): for tests and benchmarks. Null when unavailable.
  std::string (*scratch_address)(const std::filesystem::path& scratch_dir, std::string_view tag);

  bool available() const { return unavailable.empty(); }
};

/// Every channel kind this program knows, sorted by name; unavailable ones say why.
std::span<const ChannelKind> channel_kinds();

/// Parses and validates a --channel value; throws util::BadInputError naming the value and the valid forms (a "pipe:" on Linux says it is Windows only, "shm:" on Windows that it is POSIX only).
ChannelSpec parse_channel_spec(std::string_view text);

/// Opens the channel of `spec` (not none) for `role`, waiting up to open_timeout for the peer;
/// `notice` gets the lines the user should see (see ChannelNotice). Throws wire::ChannelSetupError.
std::unique_ptr<wire::Channel> open_channel(const ChannelSpec& spec, ChannelRole role, std::chrono::milliseconds open_timeout,
                                            const ChannelNotice& notice = {});

/// Where the dynamics listening on ADDRESS:PORT writes its session token and a viewer on the
/// same machine that reached that endpoint reads it (wire::TcpOptions::token_file):
/// "$TMPDIR/cosim-<user>-tcp-<ADDRESS>-<PORT>.token" (Windows: in %TEMP%), ADDRESS as an IP
/// literal, an IPv6 one with '_' for ':' ("cosim-1000-tcp-__1-5555.token" for [::1]:5555).
std::filesystem::path tcp_token_file(std::string_view address, std::uint16_t port);

/// The channel both sides use when none is given ("fifo:$TMPDIR/cosim-<euid>").
std::string default_channel_text();

/// One line per channel kind this build can open ("  tcp:HOST:PORT  TCP (Boost.Asio): ..."),
/// for the programs' --help.
std::string channel_help();

/// The valid --channel forms of this build, for help and messages: "none, fifo:DIR or mem:NAME".
std::string valid_channel_forms();

/// The forms a visual side, another process, can join: those above without none (the dynamics
/// alone) and mem: (threads of one program): "fifo:DIR, shm:NAME or tcp:HOST:PORT".
std::string visual_channel_forms();

}  // namespace cosim::protocol
