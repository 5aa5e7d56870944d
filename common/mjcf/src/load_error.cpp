// What MuJoCo's loader says when it refuses a model, made useful (mjcf.hpp), and the loading.
#include "cosim/mjcf/mjcf.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>
#include <vector>

#include <mujoco/mujoco.h>

namespace cosim::mjcf {

namespace fs = std::filesystem;

namespace {

// Included files are looked through for the element MuJoCo names: a bounded search.
constexpr std::size_t kMaxIncludedFiles = 64;
constexpr std::uintmax_t kMaxSearchedBytes = 16u << 20;

std::string read_small(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > kMaxSearchedBytes || ec) return {};
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The model file and the files it includes, transitively, each once; MuJoCo resolves an
/// include's path against the top model's folder.
std::vector<fs::path> model_files(const fs::path& top) {
  static const std::regex include(R"(<include\s+file\s*=\s*["']([^"']+)["'])");
  std::vector<fs::path> files{top};
  for (std::size_t i = 0; i < files.size() && files.size() < kMaxIncludedFiles; ++i) {
    const std::string text = read_small(files[i]);
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      const fs::path next = fs::path((*it)[1].str()).is_absolute() ? fs::path((*it)[1].str())
                                                                   : top.parent_path() / (*it)[1].str();
      if (std::find(files.begin(), files.end(), next) == files.end()) files.push_back(next);
    }
  }
  return files;
}

/// "FILE:LINE" of the first start tag `<element` on whose line `word` appears (an attribute
/// `word=` or a keyword `"word"`), in the included files; empty if none.
std::string locate(const fs::path& top, const std::string& element, const std::string& word, bool attribute) {
  const std::string tag = "<" + element;
  const std::string needle = attribute ? word : "\"" + word + "\"";
  const auto files = model_files(top);
  for (std::size_t f = 1; f < files.size(); ++f) {  // the top file's lines MuJoCo gives itself
    std::istringstream lines(read_small(files[f]));
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      const auto at = line.find(tag);
      if (at == std::string::npos) continue;
      const auto found = line.find(needle, at);
      if (found != std::string::npos && (!attribute || line.find('=', found) != std::string::npos)) {
        return files[f].string() + ":" + std::to_string(number);
      }
    }
  }
  return {};
}

}  // namespace

std::string explain_load_error(const fs::path& model_file, std::string_view error) {
  std::string text(error);
  static const std::regex attribute(R"(unrecognized attribute: '([^']+)' Element '([^']+)', line (\d+))");
  static const std::regex keyword(R"(invalid keyword: '([^']+)' Element '([^']+)', line (\d+))");
  static const std::regex element(R"(unrecognized element\W+Element '([^']+)', line (\d+))");
  std::smatch m;
  const std::string e(error);
  bool schema = false;
  std::string where;
  if (std::regex_search(e, m, attribute)) {
    schema = true;
    if (m[3] == "0") where = locate(model_file, m[2], m[1], true);
  } else if (std::regex_search(e, m, keyword)) {
    schema = true;
    if (m[3] == "0") where = locate(model_file, m[2], m[1], false);
  } else if (std::regex_search(e, m, element)) {
    schema = true;
    if (m[2] == "0") where = locate(model_file, m[1], "", true);
  }
  if (!where.empty()) text += " (in " + where + ")";
  if (e.find("mass and inertia of moving bodies must be larger than mjMINVAL") != std::string::npos) {
    text += "; a body on a joint that moves needs mass and inertia > 0: in a URDF an <inertial> with <mass> and "
            "<inertia> on the link (MuJoCo weighs a URDF link by its <inertial> alone), in MJCF an <inertial> or "
            "geoms with mass";
  }
  if (schema) {
    text += "; cosim uses MuJoCo " + std::string(mj_versionString()) +
            " (Debian's libmujoco): a name it does not know may be from a newer MuJoCo release "
            "(dynamics_server/backends/mujoco/MODEL.md §7 lists the usual edits)";
  }
  return text;
}

std::string one_line(std::string_view text) {
  std::string line;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += c;
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void ModelDeleter::operator()(mjModel* m) const noexcept { mj_deleteModel(m); }

ModelPtr load_model(const fs::path& file, const LoadOptions& options) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".urdf") return load_model_text(file, urdf_for_mujoco(file, options));
  const std::string name = file.string();
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) throw ModelError("cannot read model file '" + name + "': " + ec.message());
  if (size > kMaxModelFileBytes) {
    throw ModelError("model file '" + name + "' is " + std::to_string(size) + " bytes; the limit is " +
                     std::to_string(kMaxModelFileBytes));
  }
  char error[1000] = "";
  ModelPtr model(mj_loadXML(name.c_str(), nullptr, error, sizeof error));
  if (!model) throw ModelError(name + ": MuJoCo cannot load it: " + explain_load_error(file, one_line(error)));
  return model;
}

}  // namespace cosim::mjcf
