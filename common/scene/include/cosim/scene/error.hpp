#pragma once
/// \file
/// Scene loading errors: every one carries the file and line it is about.

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cosim::scene {

/// A place in a scene file. `line` is 1-based; 0 means the file (or folder) as a whole,
/// e.g. a scene folder without a project.
struct SourceLocation {
  std::filesystem::path file;
  int line = 0;
};

/// Thrown by SceneModel::load for any problem in a scene.
/// what() is "<file>:<line>: <message>", or "<file>: <message>" when line is 0.
class SceneError : public std::runtime_error {
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
