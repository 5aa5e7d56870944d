#include "xml_file.hpp"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace cosim::scene::detail {

std::string read_scene_file(const std::filesystem::path& file) {
  // Cap the size before allocating anything for the contents.
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) throw SceneError({file, 0}, "cannot read file: " + ec.message());
  if (size > kMaxXmlBytes) {
    throw SceneError({file, 0}, "file is " + std::to_string(size) +
                                    " bytes, above the 16 MiB limit for scene files");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError({file, 0}, "cannot open file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size)) {
    throw SceneError({file, 0}, "cannot read file (it changed while being read?)");
  }
  return text;
}

std::string xml_root_element(const std::filesystem::path& file) {
  constexpr std::size_t kHeadBytes = 64u << 10;
  std::ifstream in(file, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  std::size_t at = head.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  for (;;) {
    at = head.find('<', at);
    if (at == std::string::npos || at + 1 >= head.size()) return {};
    const char next = head[at + 1];
    const char* end = next == '?' ? "?>" : head.compare(at, 4, "<!--") == 0 ? "-->" : next == '!' ? ">" : nullptr;
    if (end == nullptr) break;
    at = head.find(end, at + 2);
    if (at == std::string::npos) return {};
  }
  const std::size_t name_end = head.find_first_of(" \t\r\n/>", at + 1);
  if (name_end == std::string::npos) return {};
  return head.substr(at + 1, name_end - at - 1);
}

XmlFile::XmlFile(std::filesystem::path file) : XmlFile(file, read_scene_file(file)) {}

XmlFile::XmlFile(std::filesystem::path file, std::string text)
    : file_(std::move(file)), buffer_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < buffer_.size(); ++i) {
    if (buffer_[i] == '\n') line_starts_.push_back(i + 1);
  }

  // In place and UTF-8 without conversion: node and attribute pointers are buffer offsets.
  const pugi::xml_parse_result result = doc_.load_buffer_inplace(
      buffer_.data(), buffer_.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!result) {
    throw SceneError({file_, line_at(result.offset)},
                     std::string("malformed XML: ") + result.description());
  }

  // Exactly one root element, nothing else at top level.
  int elements = 0;
  for (pugi::xml_node node : doc_.children()) {
    if (node.type() == pugi::node_element) {
      if (++elements > 1) fail(node, "more than one root element");
    } else {
      fail(node, "unexpected text outside the root element");
    }
  }
  if (elements == 0) throw SceneError({file_, 0}, "no root element");

  // Nesting bounded before any reader that recurses sees the tree (pugixml's walk does not).
  struct DepthWalker final : pugi::xml_tree_walker {
    pugi::xml_node too_deep;
    bool for_each(pugi::xml_node& node) override {
      if (depth() < kMaxXmlDepth) return true;
      too_deep = node;
      return false;
    }
  } walker;
  doc_.traverse(walker);
  if (walker.too_deep) fail(walker.too_deep, "elements nested more than " + std::to_string(kMaxXmlDepth) + " deep");
}

int XmlFile::line_at(std::ptrdiff_t offset) const {
  if (offset < 0) return 0;
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(),
                                   static_cast<std::size_t>(offset));
  return static_cast<int>(it - line_starts_.begin());
}

SourceLocation XmlFile::at(pugi::xml_node node) const {
  // Text: point at its first visible character, not at the newline that starts it.
  if (node.type() == pugi::node_pcdata || node.type() == pugi::node_cdata) {
    const char* p = node.value();
    const char* end = buffer_.data() + buffer_.size();
    if (p >= buffer_.data() && p < end) {
      while (p < end && *p != '\0' && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
      return {file_, line_at(p - buffer_.data())};
    }
  }
  return {file_, line_at(node.offset_debug())};
}

SourceLocation XmlFile::at(pugi::xml_attribute attr, pugi::xml_node owner) const {
  // Attribute names point into our buffer (in-place parse); fall back to the element's line.
  const char* name = attr ? attr.name() : nullptr;
  if (name != nullptr && name >= buffer_.data() && name < buffer_.data() + buffer_.size()) {
    return {file_, line_at(name - buffer_.data())};
  }
  return at(owner);
}

void XmlFile::fail(pugi::xml_node node, const std::string& message) const {
  throw SceneError(at(node), message);
}

void XmlFile::fail(pugi::xml_attribute attr, pugi::xml_node owner,
                   const std::string& message) const {
  throw SceneError(at(attr, owner), message);
}

}  // namespace cosim::scene::detail
