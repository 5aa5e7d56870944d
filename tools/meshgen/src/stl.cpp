#include "cosim/meshgen/stl.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

namespace cosim::meshgen {
namespace {

using Eigen::Vector3d;
using Vector3f = Eigen::Vector3f;

Vector3d unit_normal(const Mesh& m, const std::array<int, 3>& t) {
  const Vector3d& a = m.vertices[t[0]];
  const Vector3d n = (m.vertices[t[1]] - a).cross(m.vertices[t[2]] - a);
  const double len = n.norm();
  return len > 0 ? Vector3d(n / len) : Vector3d::Zero();
}

// Byte order written explicitly: the file is the same on any host.
void put_u32(std::string& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xffu));
}
void put_f32(std::string& out, double v) {
  const float f = static_cast<float>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  put_u32(out, bits);
}
std::uint32_t get_u32(std::string_view in, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + k])) << (8 * k);
  return v;
}
float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void put_number(std::string& out, double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  if (ec != std::errc()) throw std::logic_error("ascii_stl: cannot format a number");
  out.append(buf, end);
}
void put_vector(std::string& out, const char* prefix, const Vector3d& v) {
  out += prefix;
  for (int k = 0; k < 3; ++k) {
    out += ' ';
    put_number(out, v[k]);
  }
  out += '\n';
}

// Merges vertices by their exact float bits, as written.
class Welder {
 public:
  explicit Welder(Mesh& mesh) : mesh_(mesh) {}
  int add(const std::array<float, 3>& p) {
    std::array<std::uint32_t, 3> key;
    std::memcpy(key.data(), p.data(), sizeof key);
    const auto [it, inserted] = index_.try_emplace(key, static_cast<int>(mesh_.vertices.size()));
    if (inserted) mesh_.vertices.emplace_back(p[0], p[1], p[2]);
    return it->second;
  }

 private:
  Mesh& mesh_;
  std::map<std::array<std::uint32_t, 3>, int> index_;
};

Mesh read_binary(std::string_view in) {
  Mesh m;
  Welder weld(m);
  const std::uint32_t count = get_u32(in, 80);
  for (std::uint32_t t = 0; t < count; ++t) {
    const std::size_t at = 84 + 50 * static_cast<std::size_t>(t) + 12;  // skip the normal
    std::array<int, 3> tri;
    for (int v = 0; v < 3; ++v) {
      std::array<float, 3> p;
      for (int k = 0; k < 3; ++k) p[k] = as_float(get_u32(in, at + 12 * v + 4 * k));
      tri[v] = weld.add(p);
    }
    m.triangles.push_back(tri);
  }
  return m;
}

class AsciiReader {
 public:
  explicit AsciiReader(std::string_view in) : in_(in) {}

  Mesh read() {
    Mesh m;
    Welder weld(m);
    expect("solid");
    while (pos_ < in_.size() && in_[pos_] != '\n') ++pos_;  // the name, if any
    for (;;) {
      const std::string_view word = token();
      if (word == "endsolid") break;
      if (word != "facet") fail("expected 'facet' or 'endsolid', got '" + std::string(word) + "'");
      expect("normal");
      for (int k = 0; k < 3; ++k) number();
      expect("outer");
      expect("loop");
      std::array<int, 3> tri;
      for (int v = 0; v < 3; ++v) {
        expect("vertex");
        std::array<float, 3> p;
        for (int k = 0; k < 3; ++k) p[k] = number();
        tri[v] = weld.add(p);
      }
      expect("endloop");
      expect("endfacet");
      m.triangles.push_back(tri);
    }
    return m;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("ASCII STL line " + std::to_string(line_) + ": " + what);
  }
  std::string_view token() {
    while (pos_ < in_.size() && std::strchr(" \t\r\n", in_[pos_]) != nullptr) {
      if (in_[pos_] == '\n') ++line_;
      ++pos_;
    }
    const std::size_t start = pos_;
    while (pos_ < in_.size() && std::strchr(" \t\r\n", in_[pos_]) == nullptr) ++pos_;
    if (start == pos_) fail("unexpected end of file");
    return in_.substr(start, pos_ - start);
  }
  void expect(std::string_view word) {
    const std::string_view got = token();
    if (got != word) fail("expected '" + std::string(word) + "', got '" + std::string(got) + "'");
  }
  float number() {
    const std::string_view t = token();
    float v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      fail("bad number '" + std::string(t) + "'");
    return v;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::string binary_stl(const Mesh& mesh, std::string_view header) {
  if (header.substr(0, 5) == "solid")
    throw std::invalid_argument("binary_stl: header starts with 'solid'");
  std::string out(header.substr(0, 80));
  out.resize(80, ' ');
  put_u32(out, static_cast<std::uint32_t>(mesh.triangles.size()));
  out.reserve(84 + 50 * mesh.triangles.size());
  for (const auto& t : mesh.triangles) {
    const Vector3d n = unit_normal(mesh, t);
    for (int k = 0; k < 3; ++k) put_f32(out, n[k]);
    for (int v : t) {
      for (int k = 0; k < 3; ++k) put_f32(out, mesh.vertices[v][k]);
    }
    out.push_back('\0');
    out.push_back('\0');
  }
  return out;
}

std::string ascii_stl(const Mesh& mesh, std::string_view solid_name) {
  std::string out = "solid " + std::string(solid_name) + "\n";
  for (const auto& t : mesh.triangles) {
    put_vector(out, "facet normal", unit_normal(mesh, t));
    out += " outer loop\n";
    for (int v : t) put_vector(out, "  vertex", mesh.vertices[v]);
    out += " endloop\nendfacet\n";
  }
  out += "endsolid " + std::string(solid_name) + "\n";
  return out;
}

Mesh read_stl(std::string_view bytes) {
  if (bytes.size() >= 84) {
    const std::uint64_t count = get_u32(bytes, 80);
    if (84 + 50 * count == bytes.size()) return read_binary(bytes);
  }
  std::size_t first = 0;
  while (first < bytes.size() && std::strchr(" \t\r\n", bytes[first]) != nullptr) ++first;
  if (bytes.substr(first, 5) == "solid") return AsciiReader(bytes).read();
  throw std::runtime_error("not an STL file: " + std::to_string(bytes.size()) +
                           " bytes, neither 84 + 50 per triangle (binary) nor starting with "
                           "'solid' (ASCII)");
}

}  // namespace cosim::meshgen
