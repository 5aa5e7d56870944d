#include "mesh_header.hpp"

#include <array>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include <vtksys/SystemTools.hxx>

namespace cosim::visual::detail {

namespace {

/// vtkSTLReader reserves memory for the triangle count of a binary STL's header (or for what
/// the file's length holds, whichever is more) before it reads one. The file is told binary
/// from ASCII by the reader's own test, so the two cannot disagree.
std::string binary_stl_problem(const std::filesystem::path& file, std::uintmax_t bytes) {
  if (vtksys::SystemTools::DetectFileType(file.string().c_str()) == vtksys::SystemTools::FileTypeText) return {};
  constexpr std::uintmax_t kHeaderBytes = 84;    // 80 free bytes, then the uint32 triangle count
  constexpr std::uintmax_t kTriangleBytes = 50;  // normal and 3 vertices (12 float32), 2 attribute bytes
  if (bytes < kHeaderBytes) {
    return "a binary STL of " + std::to_string(bytes) + " bytes, shorter than its 84-byte header";
  }
  std::ifstream in(file, std::ios::binary);
  std::array<unsigned char, kHeaderBytes> header{};
  if (!in.read(reinterpret_cast<char*>(header.data()), header.size())) return "cannot read its header";
  const std::uint32_t announced = static_cast<std::uint32_t>(header[80]) | static_cast<std::uint32_t>(header[81]) << 8 |
                                  static_cast<std::uint32_t>(header[82]) << 16 |
                                  static_cast<std::uint32_t>(header[83]) << 24;  // little-endian
  const std::uintmax_t held = (bytes - kHeaderBytes) / kTriangleBytes;
  if (announced > held) {
    return "its header announces " + std::to_string(announced) + " triangles, its " + std::to_string(bytes) +
           " bytes hold " + std::to_string(held);
  }
  return {};
}

/// Bytes of one value of a PLY scalar type; 1 for a name not known here (a lower bound).
std::uintmax_t ply_type_bytes(const std::string& type) {
  static const std::map<std::string, std::uintmax_t> kBytes{
      {"char", 1},  {"uchar", 1},  {"int8", 1},    {"uint8", 1},   {"short", 2},   {"ushort", 2},
      {"int16", 2}, {"uint16", 2}, {"int", 4},     {"uint", 4},    {"int32", 4},   {"uint32", 4},
      {"float", 4}, {"float32", 4}, {"double", 8}, {"float64", 8}};
  const auto it = kBytes.find(type);
  return it == kBytes.end() ? 1 : it->second;
}

/// vtkPLYReader allocates each element's array from its count in the header before reading
/// the body. Each element takes at least a known number of bytes (binary: its scalar
/// properties, and the count of each list; ASCII: a digit and a separator per property), so
/// the counts must fit the body. A header this cannot follow is left to the reader to refuse.
std::string ply_problem(const std::filesystem::path& file, std::uintmax_t bytes) {
  constexpr std::size_t kMaxHeaderBytes = 64 * 1024;  // headers are a few hundred bytes
  std::ifstream in(file, std::ios::binary);
  struct Element {
    std::string name;
    std::uintmax_t count = 0;
    std::uintmax_t min_bytes = 0;  // of one element
  };
  std::vector<Element> elements;
  bool ascii = false;
  std::uintmax_t header_bytes = 0;
  std::string line;
  while (std::getline(in, line)) {
    header_bytes += line.size() + 1;
    if (header_bytes > kMaxHeaderBytes) return "no end_header in its first 64 KiB";
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    if (keyword == "end_header") break;
    if (keyword == "format") {
      std::string kind;
      words >> kind;
      ascii = kind == "ascii";
    } else if (keyword == "element") {
      Element e;
      if (!(words >> e.name >> e.count)) return {};  // the reader's own error is clearer
      elements.push_back(e);
    } else if (keyword == "property" && !elements.empty()) {
      std::string type;
      words >> type;
      if (type == "list") words >> type;  // the count's type: a list may be empty
      elements.back().min_bytes += ascii ? 2 : ply_type_bytes(type);
    }
  }
  if (!in) return {};  // no end_header: the reader refuses it
  const std::uintmax_t body_bytes = bytes - std::min(bytes, header_bytes);
  std::uintmax_t needed = 0;
  for (const Element& e : elements) {
    const std::uintmax_t each = std::max<std::uintmax_t>(e.min_bytes, 1);
    if (e.count > body_bytes / each || needed + e.count * each > body_bytes) {
      return "its header announces " + std::to_string(e.count) + " " + e.name + " elements of at least " +
             std::to_string(each) + " bytes each, more than the " + std::to_string(body_bytes) +
             " bytes after the header hold";
    }
    needed += e.count * each;
  }
  return {};
}

/// Deepest element nesting accepted in a COLLADA file: assimp's reader recurses per <node>
/// and overflowed the stack (SIGSEGV) at 60 000; real files nest a few dozen deep.
constexpr int kMaxDaeDepth = 256;

/// The element nesting of an XML file, measured by a linear scan before assimp parses it:
/// start and end tags, with comments, CDATA, processing instructions, declarations and quoted
/// attribute values skipped. Not a validator (assimp says what is malformed); only a bound.
std::string dae_problem(const std::filesystem::path& file) {
  enum class State { text, open, element, end_tag, comment, cdata, instruction, declaration };
  std::ifstream in(file, std::ios::binary);
  State state = State::text;
  std::string head;        // what follows '<' while the kind of markup is not known yet
  std::string tail;        // the last bytes of a comment, CDATA or instruction (its end marker)
  char quote = 0;          // inside a quoted attribute or declaration value
  char last = 0;           // last byte of an element's start tag before '>' ('/': empty element)
  int brackets = 0;        // [ ] of a declaration's internal subset
  int depth = 0;
  std::array<char, 64 * 1024> chunk{};
  // A quoted attribute or declaration value: true while `c` is part of one (its quotes too).
  const auto quoted = [&](char c) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      return true;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      return true;
    }
    return false;
  };
  const auto ends_with = [&](std::string_view marker) {
    return tail.size() >= marker.size() && std::string_view(tail).substr(tail.size() - marker.size()) == marker;
  };
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      const char c = chunk[static_cast<std::size_t>(i)];
      switch (state) {
        case State::text:
          if (c == '<') {
            state = State::open;
            head.clear();
          }
          break;
        case State::open:
          head += c;
          if (head == "?") {
            state = State::instruction;
          } else if (head == "/") {
            state = State::end_tag;
          } else if (head[0] != '!') {
            state = State::element;
            quote = 0;
            last = c;
          } else if (head == "!--") {
            state = State::comment;
          } else if (head == "![CDATA[") {
            state = State::cdata;
          } else if (!std::string_view("!--").starts_with(head) && !std::string_view("![CDATA[").starts_with(head)) {
            state = State::declaration;
            quote = 0;
            brackets = 0;
          }
          if (state == State::comment || state == State::cdata || state == State::instruction) tail.clear();
          break;
        case State::element:
          if (!quoted(c) && c == '>') {
            state = State::text;
            if (last != '/' && ++depth > kMaxDaeDepth) {
              return "elements nested deeper than " + std::to_string(kMaxDaeDepth) + " levels";
            }
          }
          if (c != '>') last = c;
          break;
        case State::end_tag:
          if (c == '>') {
            state = State::text;
            --depth;
          }
          break;
        case State::comment:
        case State::cdata:
        case State::instruction:
          tail += c;
          if (tail.size() > 3) tail.erase(0, tail.size() - 3);
          if ((state == State::comment && ends_with("-->")) || (state == State::cdata && ends_with("]]>")) ||
              (state == State::instruction && ends_with("?>"))) {
            state = State::text;
          }
          break;
        case State::declaration:
          if (quoted(c)) {
            // inside a quoted value: nothing counts
          } else if (c == '[') {
            ++brackets;
          } else if (c == ']') {
            --brackets;
          } else if (c == '>' && brackets <= 0) {
            state = State::text;
          }
          break;
      }
    }
  }
  return {};
}

}  // namespace

std::string mesh_header_problem(const std::filesystem::path& file, std::uintmax_t bytes, scene::MeshFormat format) {
  switch (format) {
    case scene::MeshFormat::stl: return binary_stl_problem(file, bytes);
    case scene::MeshFormat::ply: return ply_problem(file, bytes);
    case scene::MeshFormat::dae: return dae_problem(file);
    case scene::MeshFormat::obj: return {};
  }
  return {};
}

}  // namespace cosim::visual::detail
