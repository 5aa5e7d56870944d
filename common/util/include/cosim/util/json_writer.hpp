#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cosim/util/stats.hpp"

namespace cosim::util {

/// Streaming writer of one pretty-printed JSON document (run.json). Keys keep their
/// insertion order; strings are escaped per RFC 8259; non-finite numbers become null.
class JsonWriter {
 public:
  JsonWriter();
  JsonWriter& begin_object(std::string_view key);  ///< nested object under key
  JsonWriter& end_object();
  JsonWriter& field(std::string_view key, std::string_view value);
  JsonWriter& field(std::string_view key, const char* value) { return field(key, std::string_view(value)); }
  JsonWriter& field(std::string_view key, double value);
  JsonWriter& field(std::string_view key, std::int64_t value);
  JsonWriter& field(std::string_view key, std::uint64_t value);
  JsonWriter& field(std::string_view key, int value) { return field(key, static_cast<std::int64_t>(value)); }
  JsonWriter& field(std::string_view key, bool value);
  JsonWriter& field(std::string_view key, std::span<const std::string> values);
  /// The finished document (closes every open object).
  std::string str() const;
  /// Writes str() to path atomically (temp file + rename). Throws std::runtime_error naming the path.
  void write_file(const std::filesystem::path& path) const;

 private:
  void key(std::string_view k);
  std::string out_;
  std::vector<bool> first_;  // per open object: no member written yet
};

/// The statistics of one quantity as an object under `key`, the same in every record:
/// count, p50, p99, max, mean (null when count is 0).
JsonWriter& write_statistics(JsonWriter& json, std::string_view key, const Summary& s);

/// JSON string literal with quotes and escapes.
std::string json_quote(std::string_view s);

}  // namespace cosim::util
