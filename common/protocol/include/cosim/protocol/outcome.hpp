#pragma once
/// \file
/// How a process ends: the one translation of an exception into an exit code, a run status
/// and the line printed on stderr. Called once, in each executable's main (STYLE 9: catch
/// only at main and in tests).

#include <exception>
#include <string>

#include "cosim/util/exit_codes.hpp"

namespace cosim::protocol {

/// What an exception means for the process that caught it.
struct Outcome {
  util::ExitCode exit_code = util::kExitOk;
  /// run.json "status": "ok", "failed", "interrupted", "numerical_failure".
  std::string status = "ok";
  /// One line: what went wrong and where ("" when ok). Internal errors start with
  /// "internal error: ".
  std::string message;
};

/// Classifies an exception: util::CosimError by its code (backend numerical failures included),
/// wire::ChannelSetupError by its kind (bad input 2, interrupted 130, else 3), anything else
/// internal (1). When a stop was requested (Ctrl-C) and the error is another one — typically
/// the peer that stopped too — the outcome is "interrupted" with the error as a consequence.
Outcome outcome_of(std::exception_ptr error) noexcept;

}  // namespace cosim::protocol
