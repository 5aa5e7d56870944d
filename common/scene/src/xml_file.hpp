#pragma once
// One XML file of a scene, read under a size cap and parsed in place, so that every element,
// attribute and parse error can be mapped back to a line. Internal to cosim::scene.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "cosim/scene/error.hpp"

namespace cosim::scene::detail {

/// Largest XML file we read [bytes]: checked before the buffer is allocated.
inline constexpr std::uintmax_t kMaxXmlBytes = 16u << 20;
/// Deepest element nesting accepted (the scenes here nest a dozen deep; urdfdom's TinyXML
/// recurses per level and overflowed the stack at 60 000).
inline constexpr int kMaxXmlDepth = 256;

/// The whole of a scene file, at most kMaxXmlBytes; throws SceneError (unreadable, too large).
std::string read_scene_file(const std::filesystem::path& file);

/// The name of the first element of `file` ("mujoco", "project"), read from its first 64 KiB
/// past the XML declaration, comments and a DOCTYPE; empty when there is none or the file
/// cannot be read. How readers of .xml files tell theirs apart without parsing the whole file.
std::string xml_root_element(const std::filesystem::path& file);

class XmlFile {
 public:
  /// Reads and parses `file`; throws SceneError (unreadable, too large, malformed, not exactly
  /// one root element, text outside it).
  explicit XmlFile(std::filesystem::path file);
  /// Parses `text`, read from `file` by read_scene_file; throws SceneError as above.
  XmlFile(std::filesystem::path file, std::string text);
  XmlFile(const XmlFile&) = delete;
  XmlFile& operator=(const XmlFile&) = delete;

  const std::filesystem::path& path() const { return file_; }
  /// The single root element.
  pugi::xml_node root() const { return doc_.document_element(); }

  /// Location of an element (or text node): its start tag's line.
  SourceLocation at(pugi::xml_node node) const;
  /// Location of an attribute of `owner`: the attribute's own line when it can be found.
  SourceLocation at(pugi::xml_attribute attr, pugi::xml_node owner) const;

  [[noreturn]] void fail(pugi::xml_node node, const std::string& message) const;
  [[noreturn]] void fail(pugi::xml_attribute attr, pugi::xml_node owner,
                         const std::string& message) const;

 private:
  int line_at(std::ptrdiff_t offset) const;

  std::filesystem::path file_;
  std::string buffer_;                   // parsed in place: pugixml's strings point into it
  std::vector<std::size_t> line_starts_;  // offset of the first byte of each line
  pugi::xml_document doc_;
};

}  // namespace cosim::scene::detail
