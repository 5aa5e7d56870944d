#pragma once
/// @file
/// Declared backend parameters, resolved with precedence CLI > file > default.

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cosim/util/errors.hpp"

namespace cosim::dynamics {

/// One declared parameter of a backend. Values are SI; `unit` says which ("m", "rad/s", "1").
struct ParamSpec {
  std::string key;            ///< e.g. "wheel_radius_m"
  double default_value;       ///< [unit]
  double min_value;           ///< inclusive lower bound [unit]
  double max_value;           ///< inclusive upper bound [unit]
  std::string unit;           ///< "m", "rad", "rad/s", "1" for dimensionless
  std::string doc;            ///< one line, what it is
  std::string source;         ///< where the default comes from (datasheet, seed equation, assumption)
  /// A switch: the names of the values 0, 1, … ({"explicit", "implicit"}). A file or override
  /// may give the name or the number; run.json records the number.
  std::vector<std::string> choices = {};
  /// A text parameter (a file path): its default text, which may be empty. Such a parameter
  /// takes the whole value as written (trimmed), has no range (default, min and max are 0)
  /// and is read with Params::get_text. Declare it with text_param_spec().
  std::optional<std::string> text_default = std::nullopt;
};

/// A text parameter's spec: `unit` says what the text is ("path").
ParamSpec text_param_spec(std::string key, std::string default_text, std::string unit, std::string doc,
                          std::string source);

/// A family of parameters the model declares itself, known only once it is read (an FMU's
/// variables): every key `<prefix><name>` is taken as text, for the backend to check against
/// its model (Params::family). The spec's key is "<prefix>*"; `prefix` ends in '.'.
ParamSpec family_param_spec(std::string prefix, std::string doc, std::string source);
/// True for a family_param_spec.
bool is_family(const ParamSpec& spec);

/// Bad parameter input: the message names the key, and the file:line or the CLI override.
/// A cosim::util::BadInputError, so a process that lets it reach main() exits with 2.
class ParamError : public util::BadInputError {
 public:
  using BadInputError::BadInputError;
};

/// The concatenation of `parts`, in order: a backend declares its table from shared pieces
/// (e.g. robotino_geometry_param_specs(), rose_param_specs()) and its own keys. Duplicate keys
/// are caught by Params::resolve (std::logic_error) and by the registry's unit tests.
std::vector<ParamSpec> concat_param_specs(std::initializer_list<std::span<const ParamSpec>> parts);

/// Resolved parameter values of one backend (immutable once resolved).
class Params {
 public:
  /// Resolves `specs` for `backend_name`: defaults, then `file` (if not null), then `overrides`.
  /// File format: one "key = value" per line; '#' starts a comment; blank lines are ignored;
  /// a key given twice in the file is an error. Overrides are "key=value" (CLI); a key given
  /// twice on the CLI is an error too (no silent last-one-wins).
  /// Throws ParamError for an unknown key (listing the known ones), a value that is not a
  /// finite number (or one of a switch's names), a value outside [min, max], a switch's value
  /// that is not one of its numbers, a malformed line, or an unreadable file. A text
  /// parameter takes any text (in a file, up to a '#').
  /// Throws std::logic_error if `specs` itself is inconsistent (duplicate key, default out of range).
  static Params resolve(std::string_view backend_name, std::span<const ParamSpec> specs,
                        const std::filesystem::path* file, std::span<const std::string> overrides);

  /// Value of a declared key [its unit]. Throws std::out_of_range naming the key if undeclared,
  /// std::logic_error if it is a text parameter.
  double get(std::string_view key) const;
  /// Text of a declared text parameter. Throws std::out_of_range naming the key if undeclared,
  /// std::logic_error if it is a number.
  const std::string& get_text(std::string_view key) const;
  /// Index of a switch's value (a key declared with choices): 0, 1, …
  std::size_t get_choice(std::string_view key) const;
  /// True while a key holds its declared default (neither the file nor an override set it).
  bool is_default(std::string_view key) const;
  struct Entry;
  /// The entries given for a family (family_param_spec), keys `<prefix><name>`, in the order
  /// they were first given (the file's, then the command line's).
  std::vector<const Entry*> family(std::string_view prefix) const;
  /// The file a text parameter names: the first regular file among `candidates(text,
  /// is_default(key))` (scene::input_file_candidates: as given, the current folder, the scenes
  /// root), normalised. Throws ParamError "parameter 'KEY' = 'TEXT': no WHAT at A nor B", or
  /// for an empty text.
  using Candidates = std::vector<std::filesystem::path> (*)(const std::filesystem::path& given, bool shipped);
  std::filesystem::path input_file(std::string_view key, std::string_view what, Candidates candidates) const;

  /// Folders where a URDF model's package:// meshes are (cosim-dynamics --package-path), for
  /// the backends that read URDF files; $COSIM_PACKAGE_PATH comes after them.
  const std::vector<std::filesystem::path>& package_path() const { return package_path_; }
  void set_package_path(std::vector<std::filesystem::path> folders) { package_path_ = std::move(folders); }

  /// One resolved value and where it came from.
  struct Entry {
    std::string key;
    double value;        ///< [unit]; 0 for a text parameter
    std::string unit;
    std::string origin;  ///< "default", the parameter file path, or "cli"
    std::optional<std::string> text = std::nullopt;  ///< a text parameter's value
  };

  /// All values in spec order, a family's after the declared ones (for run.json).
  std::span<const Entry> entries() const { return entries_; }

 private:
  const Entry& entry(std::string_view key) const;

  std::vector<Entry> entries_;
  std::vector<std::filesystem::path> package_path_;
};

/// Largest parameter file accepted [bytes]: checked before reading (STYLE 7).
inline constexpr std::uintmax_t kMaxParamFileBytes = 1 << 20;

}  // namespace cosim::dynamics
