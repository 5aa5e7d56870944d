#include "cosim/dynamics/params.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <system_error>
#include <utility>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/util/text.hpp"

namespace cosim::dynamics {
namespace {

using util::trim;

std::string range_text(const ParamSpec& spec) {
  if (!spec.choices.empty()) {
    std::string names;
    for (std::size_t i = 0; i < spec.choices.size(); ++i) {
      names += (i ? ", " : "") + spec.choices[i] + " (" + std::to_string(i) + ")";
    }
    return "one of " + names;
  }
  return "[" + format_number(spec.min_value) + ", " + format_number(spec.max_value) + "] " +
         spec.unit;
}

// Parses the whole of `text` as a finite number within the spec's range.
// `where` prefixes every message ("file:3" or "command-line override 'k=v'").
double parse_value(const ParamSpec& spec, std::string_view text, const std::string& where) {
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (text == spec.choices[i]) return static_cast<double>(i);
  }
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // from_chars rejects '+'
  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty() ||
      !std::isfinite(value)) {
    throw ParamError(where + ": parameter '" + spec.key + "' = '" + std::string(text) + "' is not " +
                     (spec.choices.empty() ? "a finite number (expected " + range_text(spec) + ")"
                                           : range_text(spec)));
  }
  if (!spec.choices.empty() &&
      (value != std::floor(value) || value < 0.0 || value >= static_cast<double>(spec.choices.size()))) {
    throw ParamError(where + ": parameter '" + spec.key + "' = " + std::string(text) + " is not " +
                     range_text(spec));
  }
  if (value < spec.min_value || value > spec.max_value) {
    throw ParamError(where + ": parameter '" + spec.key + "' = " + std::string(text) + " " +
                     spec.unit + " is outside " + range_text(spec));
  }
  return value;
}

// Sets one entry from the text after '=': a text parameter keeps it, a number is parsed.
void set_entry(const ParamSpec& spec, std::string_view text, const std::string& where, Params::Entry& entry) {
  if (spec.text_default) {
    entry.text = std::string(text);
  } else {
    entry.value = parse_value(spec, text, where);
  }
}

void check_specs(std::string_view backend_name, std::span<const ParamSpec> specs) {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ParamSpec& spec = specs[i];
    const std::string who = "backend " + std::string(backend_name) + " parameter '" + spec.key + "'";
    if (spec.key.empty()) throw std::logic_error("backend " + std::string(backend_name) +
                                                 ": a parameter has an empty key");
    if (spec.key.find('*') != std::string::npos && (!is_family(spec) || !spec.text_default)) {
      throw std::logic_error(who + ": '*' only ends a family's key (family_param_spec)");
    }
    if (spec.text_default &&
        (!spec.choices.empty() || spec.default_value != 0.0 || spec.min_value != 0.0 || spec.max_value != 0.0)) {
      throw std::logic_error(who + ": a text parameter has no choices and default, min and max 0");
    }
    if (!spec.choices.empty() &&
        (spec.min_value != 0.0 || spec.max_value != static_cast<double>(spec.choices.size() - 1) ||
         spec.default_value != std::floor(spec.default_value))) {
      throw std::logic_error(who + ": a switch's range is [0, number of names - 1], its default one of them");
    }
    if (!(spec.min_value <= spec.default_value && spec.default_value <= spec.max_value) ||
        !std::isfinite(spec.default_value)) {
      throw std::logic_error(who + ": default " + format_number(spec.default_value) +
                             " is outside " + range_text(spec));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (specs[j].key == spec.key) throw std::logic_error(who + " declared twice");
    }
  }
}

}  // namespace

Params Params::resolve(std::string_view backend_name, std::span<const ParamSpec> specs,
                       const std::filesystem::path* file,
                       std::span<const std::string> overrides) {
  check_specs(backend_name, specs);

  Params params;
  params.entries_.reserve(specs.size());
  std::vector<const ParamSpec*> spec_of;  // per entry: its spec (a family's for its members)
  for (const ParamSpec& spec : specs) {
    if (is_family(spec)) continue;  // its members are entries once given
    params.entries_.push_back({spec.key, spec.default_value, spec.unit, "default", spec.text_default});
    spec_of.push_back(&spec);
  }

  std::string known;
  for (const ParamSpec& spec : specs) {
    known += (known.empty() ? "" : ", ") + (is_family(spec) ? spec.key.substr(0, spec.key.size() - 1) + "<name>" : spec.key);
  }
  if (known.empty()) known = "(none)";
  // The entry of `key`: a declared one, or a family member, made on its first mention.
  const auto find = [&](std::string_view key, const std::string& where) -> std::size_t {
    for (std::size_t i = 0; i < params.entries_.size(); ++i) {
      if (params.entries_[i].key == key) return i;
    }
    for (const ParamSpec& spec : specs) {
      const std::string_view prefix = std::string_view(spec.key).substr(0, spec.key.size() - 1);
      if (is_family(spec) && key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix) {
        params.entries_.push_back({std::string(key), 0.0, "", "default", std::string()});
        spec_of.push_back(&spec);
        return params.entries_.size() - 1;
      }
    }
    throw ParamError(where + ": unknown parameter '" + std::string(key) + "' for backend " +
                     std::string(backend_name) + "; known: " + known);
  };

  // File layer: "key = value" lines; duplicates are errors, not silent overrides.
  if (file != nullptr) {
    const std::string path = file->string();
    std::error_code ec;
    const auto size = std::filesystem::file_size(*file, ec);
    if (ec) throw ParamError("cannot read parameter file '" + path + "': " + ec.message());
    if (size > kMaxParamFileBytes) {
      throw ParamError("parameter file '" + path + "' is " + std::to_string(size) +
                       " bytes; the limit is " + std::to_string(kMaxParamFileBytes));
    }
    std::ifstream in(*file);
    if (!in) throw ParamError("cannot open parameter file '" + path + "'");
    std::vector<int> first_line;  // per entry
    std::string line;
    for (int line_no = 1; std::getline(in, line); ++line_no) {
      const std::string where = path + ":" + std::to_string(line_no);
      std::string_view text = line;
      if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
      text = trim(text);
      if (text.empty()) continue;
      const auto eq = text.find('=');
      const std::string_view key = eq == std::string_view::npos ? text : trim(text.substr(0, eq));
      if (eq == std::string_view::npos || key.empty()) {
        throw ParamError(where + ": expected 'key = value', got '" + std::string(text) + "'");
      }
      const std::size_t index = find(key, where);
      first_line.resize(params.entries_.size(), 0);
      if (first_line[index] != 0) {
        throw ParamError(where + ": parameter '" + params.entries_[index].key + "' given twice (first at " +
                         path + ":" + std::to_string(first_line[index]) + ")");
      }
      first_line[index] = line_no;
      set_entry(*spec_of[index], trim(text.substr(eq + 1)), where, params.entries_[index]);
      params.entries_[index].origin = path;
    }
    if (in.bad()) throw ParamError("error reading parameter file '" + path + "'");
  }

  // CLI layer wins over the file.
  std::vector<bool> seen_cli;  // per entry
  for (const std::string& override_text : overrides) {
    const std::string where = "command-line override '" + override_text + "'";
    const std::string_view text = override_text;
    const auto eq = text.find('=');
    const std::string_view key = eq == std::string_view::npos ? text : trim(text.substr(0, eq));
    if (eq == std::string_view::npos || key.empty()) {
      throw ParamError(where + ": expected key=value");
    }
    const std::size_t index = find(key, where);
    seen_cli.resize(params.entries_.size(), false);
    if (seen_cli[index]) {
      throw ParamError(where + ": parameter '" + params.entries_[index].key +
                       "' given twice on the command line");
    }
    seen_cli[index] = true;
    set_entry(*spec_of[index], trim(text.substr(eq + 1)), where, params.entries_[index]);
    params.entries_[index].origin = "cli";
  }
  return params;
}

std::vector<ParamSpec> concat_param_specs(std::initializer_list<std::span<const ParamSpec>> parts) {
  std::vector<ParamSpec> specs;
  for (const std::span<const ParamSpec> part : parts) specs.insert(specs.end(), part.begin(), part.end());
  return specs;
}

std::size_t Params::get_choice(std::string_view key) const {
  return static_cast<std::size_t>(get(key));  // resolve() made it a whole number in range
}

ParamSpec family_param_spec(std::string prefix, std::string doc, std::string source) {
  if (prefix.empty() || prefix.back() != '.') throw std::logic_error("a family's prefix ends in '.': '" + prefix + "'");
  return text_param_spec(prefix + "*", "", "text", std::move(doc), std::move(source));
}

bool is_family(const ParamSpec& spec) { return spec.key.size() > 2 && spec.key.ends_with(".*"); }

std::vector<const Params::Entry*> Params::family(std::string_view prefix) const {
  std::vector<const Entry*> members;
  for (const Entry& entry : entries_) {
    if (entry.key.size() > prefix.size() && std::string_view(entry.key).substr(0, prefix.size()) == prefix) {
      members.push_back(&entry);
    }
  }
  return members;
}

ParamSpec text_param_spec(std::string key, std::string default_text, std::string unit, std::string doc,
                          std::string source) {
  return {std::move(key), 0.0, 0.0, 0.0, std::move(unit), std::move(doc), std::move(source), {},
          std::move(default_text)};
}

double Params::get(std::string_view key) const {
  const Entry& found = entry(key);
  if (found.text) throw std::logic_error("parameter '" + found.key + "' is text: read it with get_text");
  return found.value;
}

const std::string& Params::get_text(std::string_view key) const {
  const Entry& found = entry(key);
  if (!found.text) throw std::logic_error("parameter '" + found.key + "' is a number: read it with get");
  return *found.text;
}

bool Params::is_default(std::string_view key) const { return entry(key).origin == "default"; }

std::filesystem::path Params::input_file(std::string_view key, std::string_view what, Candidates candidates) const {
  const std::string& text = get_text(key);
  const std::string name(key);
  if (text.empty()) throw ParamError("parameter '" + name + "' is empty: give the " + std::string(what) + "'s path");
  const std::vector<std::filesystem::path> tried = candidates(std::filesystem::path(text), is_default(key));
  std::error_code ec;
  for (const std::filesystem::path& candidate : tried) {
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.lexically_normal();
  }
  std::vector<std::string> places;
  for (const std::filesystem::path& candidate : tried) places.push_back(candidate.string());
  throw ParamError("parameter '" + name + "' = '" + text + "': no " + std::string(what) + " at " +
                   util::join(places, " nor "));
}

const Params::Entry& Params::entry(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return entry;
  }
  std::string known;
  for (const Entry& entry : entries_) known += (known.empty() ? "" : ", ") + entry.key;
  throw std::out_of_range("no parameter '" + std::string(key) + "' declared; known: " + known);
}

}  // namespace cosim::dynamics
