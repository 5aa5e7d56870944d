#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "cosim/platform/console.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/exit_codes.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {

/// The one help style of every cosim program. An option's value is named by what it is:
/// NUMBER for any number (also where the launcher keeps the text to pass on), the choices as
/// `a|b|c`, else the name the option gives (PATH, DIR, WxH, TEXT). Its description then ends
/// with what the checks and the default say, one way for all: "(in [0.01, 10000]; default 20)".
/// Units are in the descriptions ("[s]").
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(32); }

  // "--hold,--no-hold", without CLI11's "{false}" after the negated name.
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    for (std::size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
      name.erase(open, name.find('}', open) - open + 1);
    }
    return name;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0) return "";  // a flag
    std::string out = " " + value_name(*opt);
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (opt->get_required()) out += " REQUIRED";
    return out;
  }

  std::string make_option_desc(const CLI::Option* opt) const override {
    std::vector<std::string> facts;
    for (const std::string& check : checks(*opt)) {
      if (check.front() == '[') facts.push_back("in " + check);
      if (check == "NONNEGATIVE") facts.emplace_back(">= 0");
      if (check == "POSITIVE") facts.emplace_back("> 0");
    }
    if (opt->get_type_size() != 0 && !opt->get_default_str().empty()) facts.push_back("default " + opt->get_default_str());
    std::string desc = opt->get_description();
    if (facts.empty()) return desc;
    // A description ending in parentheses gets the facts inside them: "(see X; default Y)".
    const bool inside = !desc.empty() && desc.back() == ')';
    desc = inside ? desc.substr(0, desc.size() - 1) + "; " : desc + " (";
    for (std::size_t i = 0; i < facts.size(); ++i) desc += (i == 0 ? "" : "; ") + facts[i];
    return desc + ")";
  }

 private:
  // The validators' descriptions CLI11 appends to the type name: "TEXT:[0, 64]:{a,b}".
  static std::vector<std::string> checks(const CLI::Option& opt) {
    std::vector<std::string> out;
    const std::string full = opt.get_type_name();
    for (std::size_t at = full.find(':'); at != std::string::npos;) {
      const std::size_t next = full.find(':', at + 1);
      out.push_back(full.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
      at = next;
    }
    std::erase_if(out, [](const std::string& check) { return check.empty(); });
    return out;
  }

  static std::string value_name(const CLI::Option& opt) {
    const std::string full = opt.get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    bool numeric = type == "FLOAT" || type == "INT" || type == "UINT" || type == "NUMBER";
    for (const std::string& check : checks(opt)) {
      if (check.front() == '{' && check.back() == '}') {
        std::string choices = check.substr(1, check.size() - 2);
        std::replace(choices.begin(), choices.end(), ',', '|');
        return choices;
      }
      numeric = numeric || check.front() == '[' || check == "NONNEGATIVE" || check == "POSITIVE";
    }
    return numeric ? "NUMBER" : type;
  }
};

/// Parses argv the way every cosim executable does. Returns -1 to go on, or the exit code to
/// stop with now: 0 after --help/--version, 2 after one "program: error: ..." line for bad usage.
/// `args` are UTF-8, the program's name first (platform::utf8_arguments).
inline int parse_command_line(CLI::App& app, std::vector<std::string> args) {
  app.formatter(std::make_shared<HelpFormatter>());
  try {
    if (!args.empty()) args.erase(args.begin());
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // What was typed is shown, not obeyed (control characters, escape sequences: printable()).
    std::fprintf(stderr, "%s: error: %s (see --help)\n", app.get_name().c_str(), printable(e.what(), kMaxEventChars).c_str());
    return kExitBadInput;
  }
}

/// As above, with the process's own arguments (as UTF-8: on Windows from the wide command line).
inline int parse_command_line(CLI::App& app, int argc, char** argv) {
  return parse_command_line(app, platform::utf8_arguments(argc, argv));
}

/// A path option: the UTF-8 text becomes a path as platform::path_from_utf8 reads it
/// (binding a std::filesystem::path directly would read it in the ANSI code page on Windows).
inline CLI::Option* add_path_option(CLI::App& app, const std::string& name, std::filesystem::path& target,
                                    const std::string& description) {
  return app
      .add_option_function<std::string>(
          name, [&target](const std::string& text) { target = platform::path_from_utf8(text); }, description)
      ->type_name("PATH");
}

/// A repeatable option of folders, each value also a list separated like PATH (':', ';' on
/// Windows): every folder is appended to `target` in order and must exist.
inline CLI::Option* add_folder_list_option(CLI::App& app, const std::string& name,
                                           std::vector<std::filesystem::path>& target, const std::string& description) {
#ifdef _WIN32
  constexpr char kSeparator = ';';
#else
  constexpr char kSeparator = ':';
#endif
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&target, name](const std::vector<std::string>& values) {
            for (const std::string& value : values) {
              std::size_t start = 0;
              while (start <= value.size()) {
                const std::size_t end = std::min(value.find(kSeparator, start), value.size());
                if (end > start) {
                  const std::string folder = value.substr(start, end - start);
                  std::error_code ec;
                  if (!std::filesystem::is_directory(platform::path_from_utf8(folder), ec)) {
                    throw CLI::ValidationError(name, "'" + folder + "' is not a folder");
                  }
                  target.push_back(platform::path_from_utf8(folder));
                }
                start = end + 1;
              }
            }
          },
          description)
      ->type_name("DIR");
}

/// A CLI11 check for a numeric option: a finite number in [min, max] ("nan", "inf" and
/// values that would overflow a conversion later are refused up front, naming the range).
inline CLI::Validator finite_range(double min, double max) {
  char range[96];
  std::snprintf(range, sizeof range, "[%g, %g]", min, max);
  const std::string description = range;
  return CLI::Validator(
      [min, max, description](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < min || v > max) {
          return "'" + text + "' is not a number in " + description;
        }
        return "";
      },
      description);
}

}  // namespace cosim::util
