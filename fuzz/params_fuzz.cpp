// Fuzz target: backend parameters (--params FILE and --param key=value). The input is written
// as a parameter file in this process's scratch folder and resolved with Params::resolve
// against the declared parameters of every backend in the registry (kinematic, robotino);
// its lines that are neither blank nor comments are also given as command-line overrides,
// alone and together with the file.
//
// Oracles, besides the sanitizers:
// - the only error is ParamError (params.hpp), naming the file (file errors) or starting with
//   "command-line override '" (override errors);
// - resolved values are one per declared key, in spec order, finite and within [min, max]
//   (a text parameter: any text), with origin "default", the file path or "cli", and
//   get(key) (get_text(key)) returns them;
// - precedence CLI > file > default: when the file and the overrides each resolve, both
//   together resolve to the override's value where there is one, else the file's.

#include <cosim/dynamics/params.hpp>
#include <cosim/dynamics/registry/registry.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/fuzz_support.hpp"

namespace {

namespace dyn = cosim::dynamics;
using cosim::fuzz::check;

constexpr std::size_t kMaxOverrides = 64;  // bounds the work per input

void check_params(const dyn::Params& params, std::span<const dyn::ParamSpec> all_specs, const std::string& file_origin) {
  // One entry per declared key, in order; then a family's members (family_param_spec), each
  // text under a family's prefix.
  std::vector<dyn::ParamSpec> specs, families;
  for (const dyn::ParamSpec& spec : all_specs) (dyn::is_family(spec) ? families : specs).push_back(spec);
  const auto entries = params.entries();
  check(entries.size() >= specs.size(), "resolve() did not return one entry per declared key");
  for (std::size_t i = specs.size(); i < entries.size(); ++i) {
    const dyn::Params::Entry& e = entries[i];
    const bool member = std::any_of(families.begin(), families.end(), [&](const dyn::ParamSpec& f) {
      const std::string prefix = f.key.substr(0, f.key.size() - 1);
      return e.key.size() > prefix.size() && e.key.compare(0, prefix.size(), prefix) == 0;
    });
    check(member && e.text.has_value() && e.origin != "default", e.key + ": an entry past the declared keys that is no family member");
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const dyn::ParamSpec& spec = specs[i];
    const dyn::Params::Entry& e = entries[i];
    check(e.key == spec.key && e.unit == spec.unit, "entry " + std::to_string(i) + " is not spec " + spec.key);
    check(e.origin == "default" || e.origin == "cli" || (!file_origin.empty() && e.origin == file_origin),
          spec.key + ": unexpected origin '" + e.origin + "'");
    if (spec.text_default) {  // a text parameter (a path): any text, read with get_text
      check(e.text.has_value() && params.get_text(spec.key) == *e.text, spec.key + ": get_text() differs from entries()");
      check(e.origin != "default" || e.text == spec.text_default, spec.key + ": origin default with another text");
      continue;
    }
    check(std::isfinite(e.value) && e.value >= spec.min_value && e.value <= spec.max_value,
          spec.key + " resolved outside its range");
    check(e.origin != "default" || e.value == spec.default_value, spec.key + ": origin default with another value");
    const double got = params.get(spec.key);
    check(got == e.value || (std::isnan(got) && std::isnan(e.value)), spec.key + ": get() differs from entries()");
  }
}

// Resolves and checks; nullopt after a (checked) ParamError.
std::optional<dyn::Params> resolve(const dyn::registry::BackendEntry& backend, const std::filesystem::path* file,
                                   std::span<const std::string> overrides) {
  const std::span<const dyn::ParamSpec> specs = backend.param_specs();
  const std::string path = file != nullptr ? file->string() : "";
  try {
    dyn::Params params = dyn::Params::resolve(backend.name, specs, file, overrides);
    check_params(params, specs, path);
    return params;
  } catch (const dyn::ParamError& e) {
    const std::string_view what = e.what();
    const bool names_file = !path.empty() && what.find(path) != std::string_view::npos;
    const bool names_override = cosim::fuzz::starts_with(what, "command-line override '");
    check(names_file || names_override, "ParamError names neither the file nor the override: " + std::string(what));
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cosim::fuzz::ScratchDir dir("params");
  const std::filesystem::path file = dir.path() / "input.params";
  cosim::fuzz::write_file(file, std::span(data, size));

  // The file's settings as --param values: its lines, minus blanks and comments.
  std::vector<std::string> overrides;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::size_t at = 0; at < text.size() && overrides.size() < kMaxOverrides;) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (const auto first = line.find_first_not_of(" \t\r"); first != std::string_view::npos && line[first] != '#') {
      overrides.emplace_back(line);
    }
    at = end + 1;
  }

  return cosim::fuzz::guarded([&] {
    for (const dyn::registry::BackendEntry& backend : dyn::registry::backend_registry()) {
      const auto from_file = resolve(backend, &file, {});
      const auto from_cli = resolve(backend, nullptr, overrides);
      const auto both = resolve(backend, &file, overrides);
      if (!from_file || !from_cli) continue;
      check(both.has_value(), std::string(backend.name) + ": file and overrides resolve alone but not together");
      const auto f = from_file->entries(), c = from_cli->entries(), b = both->entries();
      for (std::size_t i = 0; i < b.size(); ++i) {
        const dyn::Params::Entry& expected = c[i].origin == "cli" ? c[i] : f[i];
        check(b[i].origin == expected.origin && b[i].value == expected.value && b[i].text == expected.text,
              std::string(backend.name) + ": " + b[i].key + " does not follow CLI > file > default");
      }
    }
  });
}
