#pragma once
// What MuJoCo's loader says when it refuses a model, made useful: the file and line of an error
// in an included file (MuJoCo 2.2 says "line 0" there), and, for the schema errors a model
// written for a newer MuJoCo gets, which MuJoCo this is (MODEL.md §9 lists the usual edits).

#include <filesystem>
#include <string>
#include <string_view>

namespace cosim::dynamics::mujoco {

/// `error` (MuJoCo's text, on one line) with, where they apply, " (in FILE:LINE)" for an
/// element of an included file and a hint naming this MuJoCo's version.
std::string explain_load_error(const std::filesystem::path& model_file, std::string_view error);

}  // namespace cosim::dynamics::mujoco
