#pragma once
/// \file
/// Strict reading of the JSON records between programs (run.json, visual.json): the document
/// size and nesting capped before the parser sees them, then every key asked for by name and
/// type, with one error line naming the file and the key. Private to cosim::run.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cosim::run::detail {

/// Deepest nesting of objects and arrays read; run.json has 3.
inline constexpr int kMaxJsonDepth = 16;

/// The text of a regular file of at most max_bytes; util::BadInputError naming it otherwise.
std::string read_small_file(const std::filesystem::path& file, std::uintmax_t max_bytes, std::string_view what);

/// Parses `text` (util::BadInputError "<where>: <what is wrong>" on a syntax error, invalid
/// UTF-8, or nesting deeper than kMaxJsonDepth); the top level must be an object.
nlohmann::json parse_object(std::string_view text, const std::string& where);

/// One JSON object being read: each accessor throws util::BadInputError naming the file and
/// the key's full path ("summary.rtt_us.p50") when it is missing or has another type.
class StrictObject {
 public:
  StrictObject(const nlohmann::json& object, const std::string& where, std::string prefix = "")
      : object_(object), where_(where), prefix_(std::move(prefix)) {}

  std::string text(std::string_view key) const;
  /// Any JSON number; null reads as NaN (the writers write non-finite numbers as null).
  double number(std::string_view key) const;
  /// A non-negative integer.
  std::uint64_t count(std::string_view key) const;
  int integer(std::string_view key) const;
  std::vector<std::string> texts(std::string_view key) const;
  StrictObject object(std::string_view key) const;
  bool has(std::string_view key) const { return object_.contains(key); }

  /// The object's own members, in file order.
  const nlohmann::json& json() const { return object_; }
  /// The full path of key, for messages.
  std::string path(std::string_view key) const { return prefix_ + std::string(key); }
  /// Throws util::BadInputError "<where>: key '<path>': <problem>".
  [[noreturn]] void fail(std::string_view key, const std::string& problem) const;

 private:
  const nlohmann::json& at(std::string_view key, const char* expected) const;

  const nlohmann::json& object_;
  const std::string& where_;
  std::string prefix_;
};

}  // namespace cosim::run::detail
