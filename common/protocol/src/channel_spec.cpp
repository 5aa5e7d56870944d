#include "cosim/protocol/channel_spec.hpp"

#include <algorithm>

#include "channel_kinds.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/event_log.hpp"

namespace cosim::protocol {
namespace {

const ChannelKind* find_kind(std::string_view name) {
  for (const ChannelKind& kind : channel_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

}  // namespace

namespace detail {

std::string openable_forms(bool between_processes_only) {
  std::string forms;
  std::string last;
  for (const ChannelKind& kind : channel_kinds()) {
    if (!kind.available() || (between_processes_only && kind.name == "mem")) continue;
    if (!last.empty()) forms += (forms.empty() ? "" : ", ") + last;
    last = std::string(kind.usage);
  }
  return forms.empty() ? last : forms + " or " + last;
}

}  // namespace detail

std::span<const ChannelKind> channel_kinds() {
  // The closed table: keep it sorted by name, one line per kind. A kind this build cannot
  // open stays listed, so its name gets a precise refusal instead of "unknown".
  static const ChannelKind kinds[] = {
      detail::fifo_channel_kind(),
      detail::mem_channel_kind(),
      detail::pipe_channel_kind(),
      detail::shm_channel_kind(),
      detail::tcp_channel_kind(),
  };
  return kinds;
}

ChannelNotice notices_to(util::EventLog& log) {
  return [&log](wire::NoticeLevel level, std::string_view line) {
    switch (level) {
      case wire::NoticeLevel::info: log.info(line); break;
      case wire::NoticeLevel::warning: log.warn(line); break;
      case wire::NoticeLevel::secret: log.secret(line); break;
    }
  };
}

std::string channel_help() {
  std::string text = "Channels (--channel; both sides name the same one):\n";
  for (const ChannelKind& kind : channel_kinds()) {
    if (!kind.available() || kind.name == "mem") continue;  // mem: joins two threads of one program (tests)
    std::string usage(kind.usage);
    usage.resize(std::max<std::size_t>(usage.size(), 15), ' ');
    text += "  " + usage + " " + std::string(kind.help) + "\n";
  }
  return text;
}

std::string valid_channel_forms() { return "none, " + detail::openable_forms(false); }

std::string visual_channel_forms() { return detail::openable_forms(true); }

ChannelSpec parse_channel_spec(std::string_view text) {
  ChannelSpec spec{.kind = "", .address = "", .text = std::string(text)};
  if (text == "none") {
    spec.kind = "none";
    return spec;
  }
  const auto colon = text.find(':');
  const ChannelKind* kind = colon == std::string_view::npos ? nullptr : find_kind(text.substr(0, colon));
  if (kind == nullptr) {
    throw util::BadInputError("--channel '" + spec.text + "': expected " + valid_channel_forms());
  }
  if (!kind->available()) {
    throw util::BadInputError("--channel '" + spec.text + "': " + std::string(kind->usage) + " " +
                              std::string(kind->unavailable) + "; use " + valid_channel_forms());
  }
  spec.kind = std::string(kind->name);
  spec.address = std::string(text.substr(colon + 1));
  kind->check_address(spec.address, spec.text);
  return spec;
}

std::unique_ptr<wire::Channel> open_channel(const ChannelSpec& spec, ChannelRole role,
                                            std::chrono::milliseconds open_timeout, const ChannelNotice& notice) {
  const ChannelKind* kind = find_kind(spec.kind);
  if (kind == nullptr || !kind->available()) {
    // parse_channel_spec() never yields such a spec: this is a caller's hand-made one.
    throw wire::ChannelSetupError(wire::ChannelSetupError::Kind::bad_input,
                                  "cannot open channel '" + spec.text + "': " +
                                      (spec.none() ? std::string("'none' has no channel to open")
                                                   : "this build opens " + detail::openable_forms(false)));
  }
  return role == ChannelRole::dynamics ? kind->open_dynamics(spec, open_timeout, notice)
                                       : kind->open_visual(spec, open_timeout, notice);
}

}  // namespace cosim::protocol
