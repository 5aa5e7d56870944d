#include "strict_json.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <system_error>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::run::detail {

namespace fs = std::filesystem;

std::string read_small_file(const fs::path& file, std::uintmax_t max_bytes, std::string_view what) {
  const std::string name = platform::utf8(file);
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) {
    throw util::BadInputError(name + ": no such file (" + std::string(what) + ")");
  }
  if (ec) throw util::BadInputError(name + ": cannot read: " + platform::error_text(ec));
  // A FIFO or a device would block or never end; a folder is not a record.
  if (!fs::is_regular_file(status)) throw util::BadInputError(name + ": not a regular file (" + std::string(what) + ")");
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw util::BadInputError(name + ": cannot read: " + platform::error_text(ec));
  if (size > max_bytes) {
    throw util::BadInputError(name + ": " + std::to_string(size) + " bytes, more than the " +
                              std::to_string(max_bytes) + " a " + std::string(what) + " may have");
  }
  // Opened by path, not by name: a narrow file name is read in the ANSI code page on Windows.
  std::ifstream in(file, std::ios::binary);
  if (!in) throw util::BadInputError(name + ": cannot open file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));  // a file that shrank meanwhile
  return text;
}

nlohmann::json parse_object(std::string_view text, const std::string& where) {
  nlohmann::json document;
  try {
    // The callback sees every value as it is parsed: nesting is refused before it grows.
    document = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > kMaxJsonDepth) {
        throw util::BadInputError(where + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    // A parse error, or a number beyond a double (out_of_range.406, "33E333"). e.what() is
    // "[json.exception.parse_error.101] parse error at line 3, column 4: ..."
    std::string message = e.what();
    if (const auto at = message.find("] "); at != std::string::npos) message.erase(0, at + 2);
    throw util::BadInputError(where + ": " + util::printable(message));
  }
  if (!document.is_object()) throw util::BadInputError(where + ": not a JSON object");
  return document;
}

void StrictObject::fail(std::string_view key, const std::string& problem) const {
  throw util::BadInputError(where_ + ": key '" + util::printable(path(key)) + "': " + problem);
}

const nlohmann::json& StrictObject::at(std::string_view key, const char* expected) const {
  const auto it = object_.find(key);
  if (it == object_.end()) fail(key, std::string("missing (expected ") + expected + ")");
  return *it;
}

namespace {

std::string type_of(const nlohmann::json& value) {
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

}  // namespace

std::string StrictObject::text(std::string_view key) const {
  const auto& value = at(key, "a string");
  if (!value.is_string()) fail(key, "expected a string, found " + type_of(value));
  return value.get<std::string>();
}

double StrictObject::number(std::string_view key) const {
  const auto& value = at(key, "a number");
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value.is_number()) fail(key, "expected a number, found " + type_of(value));
  return value.get<double>();
}

std::uint64_t StrictObject::count(std::string_view key) const {
  const auto& value = at(key, "a non-negative integer");
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer()) fail(key, "expected a non-negative integer, found " + value.dump());
  fail(key, "expected a non-negative integer, found " + type_of(value));
}

int StrictObject::integer(std::string_view key) const {
  const auto& value = at(key, "an integer");
  if (!value.is_number_integer()) fail(key, "expected an integer, found " + type_of(value));
  const auto v = value.get<std::int64_t>();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    fail(key, "integer out of range: " + value.dump());
  }
  return static_cast<int>(v);
}

std::vector<std::string> StrictObject::texts(std::string_view key) const {
  const auto& value = at(key, "an array of strings");
  if (!value.is_array()) fail(key, "expected an array of strings, found " + type_of(value));
  std::vector<std::string> out;
  out.reserve(value.size());
  for (const auto& item : value) {
    if (!item.is_string()) fail(key, "expected an array of strings, found " + type_of(item) + " in it");
    out.push_back(item.get<std::string>());
  }
  return out;
}

StrictObject StrictObject::object(std::string_view key) const {
  const auto& value = at(key, "an object");
  if (!value.is_object()) fail(key, "expected an object, found " + type_of(value));
  return StrictObject(value, where_, path(key) + ".");
}

}  // namespace cosim::run::detail
