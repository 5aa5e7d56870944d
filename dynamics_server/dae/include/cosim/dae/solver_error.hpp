#pragma once
/// @file
/// The one error type of the DAE kit.

#include <string>

#include "cosim/util/errors.hpp"

namespace cosim::dae {

/// A solver failure: SUNDIALS refused a setting or gave up (its flag name and message are in
/// the text), a consistent re-initialisation did not converge, dense output was asked before
/// the first step. The message starts with the `who` given to the solver ("backend robotino: ").
/// A cosim::util::NumericalError: a process that lets it reach main() exits with 5, like a
/// backend's own BackendError.
class SolverError : public util::NumericalError {
 public:
  using NumericalError::NumericalError;
};

}  // namespace cosim::dae
