#include "cosim/scene/error.hpp"

#include <utility>

namespace cosim::scene {
namespace {

std::string format(const SourceLocation& where, const std::string& message) {
  std::string out = where.file.string();
  if (where.line > 0) out += ":" + std::to_string(where.line);
  return out + ": " + message;
}

}  // namespace

SceneError::SceneError(SourceLocation where, const std::string& message)
    : std::runtime_error(format(where, message)), where_(std::move(where)), message_(message) {}

}  // namespace cosim::scene
