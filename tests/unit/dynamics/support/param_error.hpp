#pragma once
// Catching a ParamError in a test: its message, to match with HasSubstr.

#include <string>

#include "cosim/dynamics/params.hpp"

namespace cosim::test {

/// The message of the ParamError `fn` throws, or "" if it throws none (another exception
/// passes through and fails the test).
template <class F>
std::string param_error(F&& fn) {
  try {
    fn();
  } catch (const dynamics::ParamError& e) {
    return e.what();
  }
  return "";
}

}  // namespace cosim::test
