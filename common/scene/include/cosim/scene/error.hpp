#pragma once
/// \file
/// Scene errors: every one carries the file and line it is about, when there is one.

#include <filesystem>
#include <string>

#include "cosim/util/errors.hpp"

namespace cosim::scene {

/// A place in a scene file. `line` is 1-based; 0 means the file (or folder) as a whole,
/// e.g. a scene folder without a project. An empty `file` means no place is known (a scene
/// built in code with SceneBuilder without locations).
struct SourceLocation {
  std::filesystem::path file;
  int line = 0;
};

/// Thrown by SceneModel::load and SceneBuilder for any problem in a scene. A bad input, so it
/// is a util::BadInputError (exit 2) and needs no translation on its way to main().
/// what() is "<file>:<line>: <message>", "<file>: <message>" when line is 0, and just
/// "<message>" when the file is empty.
class SceneError : public util::BadInputError {
 public:
  SceneError(SourceLocation where, const std::string& message);
  /// Where the problem is.
  const SourceLocation& where() const noexcept { return where_; }
  /// The message without the location prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

}  // namespace cosim::scene
