#pragma once

#include <stdexcept>
#include <string>

#include "cosim/util/exit_codes.hpp"

namespace cosim::util {

/// An error that ends a process with a known exit code. what() is the one line printed
/// on stderr: what went wrong and where. Caught only in main() and in tests.
class CosimError : public std::runtime_error {
 public:
  CosimError(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode exit_code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// Bad options, scene, parameters, joint mismatch: exit 2.
struct BadInputError : CosimError {
  explicit BadInputError(const std::string& m) : CosimError(kExitBadInput, m) {}
};
/// An output file cannot be created or written (read-only folder, full disk, file size
/// limit): exit 2, like a bad --out. What was written before stays, ending on whole records.
struct OutputError : BadInputError {
  explicit OutputError(const std::string& m) : BadInputError(m) {}
};
/// Protocol violation, vanished peer, timeout: exit 3.
struct PeerError : CosimError {
  explicit PeerError(const std::string& m) : CosimError(kExitPeerFailure, m) {}
};
/// Protocol major versions differ: exit 4.
struct VersionMismatchError : CosimError {
  explicit VersionMismatchError(const std::string& m) : CosimError(kExitVersionMismatch, m) {}
};
/// The model failed numerically (a solver gave up, a state became non-finite): exit 5.
struct NumericalError : CosimError {
  explicit NumericalError(const std::string& m) : CosimError(kExitNumerical, m) {}
};
/// SIGINT/SIGTERM: exit 130 after a clean shutdown.
struct InterruptedError : CosimError {
  explicit InterruptedError(const std::string& m) : CosimError(kExitInterrupted, m) {}
};

}  // namespace cosim::util
