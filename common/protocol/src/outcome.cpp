#include "cosim/protocol/outcome.hpp"

#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"
#include "cosim/wire/channel.hpp"
#include "cosim/wire/interrupt.hpp"

namespace cosim::protocol {

namespace {

Outcome classify(std::exception_ptr error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const util::CosimError& e) {
    return {e.exit_code(), "failed", e.what()};
  } catch (const wire::ChannelSetupError& e) {
    switch (e.kind()) {
      case wire::ChannelSetupError::Kind::bad_input: return {util::kExitBadInput, "failed", e.what()};
      case wire::ChannelSetupError::Kind::interrupted: return {util::kExitInterrupted, "interrupted", e.what()};
      default: return {util::kExitPeerFailure, "failed", e.what()};
    }
  } catch (const std::bad_alloc&) {
    return {util::kExitInternal, "failed", "internal error: out of memory"};
  } catch (const std::exception& e) {
    return {util::kExitInternal, "failed", std::string("internal error: ") + e.what()};
  } catch (...) {
    return {util::kExitInternal, "failed", "internal error: unknown exception"};
  }
}

}  // namespace

Outcome outcome_of(std::exception_ptr error) noexcept {
  if (!error) return {};
  Outcome outcome = classify(error);
  if (outcome.exit_code == util::kExitInterrupted) {
    outcome.status = "interrupted";
  } else if (outcome.exit_code == util::kExitNumerical) {
    outcome.status = "numerical_failure";
  } else if (wire::stop_requested()) {
    // The user stopped the run; what failed after that (a peer that stopped too) is a consequence.
    outcome = {util::kExitInterrupted, "interrupted", "interrupted by a signal (then: " + outcome.message + ")"};
  }
  // One line for a terminal: what the user typed or a file held (an escape sequence in a
  // --param value, a line end in a name) is shown, not obeyed.
  outcome.message = util::printable(outcome.message, util::kMaxEventChars);
  return outcome;
}

}  // namespace cosim::protocol
