#include "cosim/util/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      // JSON text is UTF-8 (RFC 8259 §8.1): a byte that is not (a command line or a path in
      // another encoding) is written as U+FFFD, so that every reader can parse the document.
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

JsonWriter& write_statistics(JsonWriter& json, std::string_view key, const Summary& s) {
  return json.begin_object(key)
      .field("count", static_cast<std::uint64_t>(s.count))
      .field("p50", s.p50)
      .field("p99", s.p99)
      .field("max", s.max)
      .field("mean", s.mean)
      .end_object();
}

JsonWriter::JsonWriter() : out_("{"), first_{true} {}

void JsonWriter::key(std::string_view k) {
  if (first_.empty()) throw std::logic_error("JsonWriter: field after the document was closed");
  out_ += first_.back() ? "\n" : ",\n";
  first_.back() = false;
  out_.append(2 * first_.size(), ' ');
  out_ += json_quote(k);
  out_ += ": ";
}

JsonWriter& JsonWriter::begin_object(std::string_view k) {
  key(k);
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (first_.size() <= 1) throw std::logic_error("JsonWriter: end_object without begin_object");
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, std::string_view value) {
  key(k);
  out_ += json_quote(value);
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, double value) {
  key(k);
  if (!std::isfinite(value)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out_.append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, std::int64_t value) {
  key(k);
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, std::uint64_t value) {
  key(k);
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, bool value) {
  key(k);
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::field(std::string_view k, std::span<const std::string> values) {
  key(k);
  out_ += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_ += ", ";
    out_ += json_quote(values[i]);
  }
  out_ += ']';
  return *this;
}

std::string JsonWriter::str() const {
  std::string doc = out_;
  for (std::size_t depth = first_.size(); depth > 0; --depth) {
    doc += '\n';
    doc.append(2 * (depth - 1), ' ');
    doc += '}';
  }
  doc += '\n';
  return doc;
}

void JsonWriter::write_file(const std::filesystem::path& path) const {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  const auto fail = [&](const std::string& what) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw OutputError(platform::utf8(path) + ": " + what);
  };
  {
    std::FILE* out = platform::open_file(tmp, "wb");  // not through a link planted as the .tmp
    if (out == nullptr) {
      fail("cannot write " + platform::utf8(tmp.filename()) + ": " + platform::error_text({errno, std::generic_category()}));
    }
    const std::string text = str();
    const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if ((std::fclose(out) != 0) || !written) fail("write failed (disk full?)");
  }
  // A rename replaces what was there, a link included, and never leaves a half-written file.
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail("cannot replace: " + platform::error_text(ec));
}

}  // namespace cosim::util
