#include "cosim/scene/error.hpp"

#include <utility>

namespace cosim::scene {
namespace {

std::string format(const SourceLocation& where, const std::string& message) {
  if (where.file.empty()) return message;  // built in code: no place to name
  std::string out = where.file.string();
  // Appends, not "a" + std::string(...): GCC 12 warns falsely (-Wrestrict) on the latter.
  if (where.line > 0) {
    out += ':';
    out += std::to_string(where.line);
  }
  out += ": ";
  out += message;
  return out;
}

}  // namespace

SceneError::SceneError(SourceLocation where, const std::string& message)
    : util::BadInputError(format(where, message)), where_(std::move(where)), message_(message) {}

}  // namespace cosim::scene
