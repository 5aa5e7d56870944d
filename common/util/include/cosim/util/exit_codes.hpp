#pragma once

/// Process exit codes shared by every cosim executable (DESIGN.md "User interface conventions").
namespace cosim::util {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,         ///< a bug: unexpected exception
  kExitBadInput = 2,         ///< bad usage, options, scene, parameters, joint mismatch
  kExitPeerFailure = 3,      ///< protocol error, vanished or failing peer, timeout
  kExitVersionMismatch = 4,  ///< protocol major versions differ
  kExitNumerical = 5,        ///< the backend failed numerically (solver gave up, non-finite state)
  kExitInterrupted = 130,    ///< SIGINT/SIGTERM, after a clean shutdown
};

}  // namespace cosim::util
