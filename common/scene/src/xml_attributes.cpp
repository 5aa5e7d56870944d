#include "xml_attributes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <system_error>

#include "cosim/scene/scene.hpp"
#include "cosim/util/text.hpp"

namespace cosim::scene::detail {

using std::string_view;

// Appends, not "'" + std::string(s): GCC 12 warns falsely (-Wrestrict) on the latter.
std::string in_quotes(string_view s) {
  std::string out(1, '\'');
  out += s;
  out += '\'';
  return out;
}
std::string tag(pugi::xml_node el) {
  std::string out(1, '<');
  out += el.name();
  out += '>';
  return out;
}

std::vector<string_view> split(string_view s) {
  std::vector<string_view> out;
  s = util::trim(s);
  while (!s.empty()) {
    const std::size_t n = std::min(s.find_first_of(util::kAsciiSpace), s.size());
    out.push_back(s.substr(0, n));
    s = util::trim(s.substr(n));
  }
  return out;
}

bool valid_name(string_view s) {
  if (s.empty() || s.front() == '.') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
  });
}

NumberStatus parse_double(string_view text, double& value) {
  string_view s = util::trim(text);
  if (s.size() > 1 && s.front() == '+' && s[1] != '-') s.remove_prefix(1);
  if (s.empty()) return NumberStatus::syntax;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::range;
  if (ec != std::errc() || end != s.data() + s.size()) return NumberStatus::syntax;
  if (!std::isfinite(value)) return NumberStatus::syntax;  // "inf", "nan"
  return NumberStatus::ok;
}

Attrs::Attrs(const XmlFile& file, pugi::xml_node el, std::initializer_list<string_view> allowed)
    : file_(file), el_(el) {
  for (pugi::xml_attribute a = el.first_attribute(); a; a = a.next_attribute()) {
    const string_view name = a.name();
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string list;
      for (string_view ok : allowed) list += (list.empty() ? "" : ", ") + std::string(ok);
      file.fail(a, el,
                "unknown attribute " + in_quotes(name) + " on " + tag(el) +
                    (list.empty() ? " (it takes none)" : " (allowed: " + list + ")"));
    }
    for (pugi::xml_attribute b = el.first_attribute(); b != a; b = b.next_attribute()) {
      if (name == b.name()) file.fail(a, el, "repeated attribute " + in_quotes(name));
    }
  }
}

pugi::xml_attribute Attrs::attr(string_view name) const {
  return el_.attribute(std::string(name).c_str());
}

void Attrs::fail(string_view name, const std::string& message) const {
  file_.fail(attr(name), el_, message);
}

string_view Attrs::str(string_view name) const {
  const pugi::xml_attribute a = attr(name);
  if (!a) file_.fail(el_, "missing required attribute " + in_quotes(name) + " on " + tag(el_));
  return a.value();
}

std::optional<string_view> Attrs::opt_str(string_view name) const {
  const pugi::xml_attribute a = attr(name);
  if (!a) return std::nullopt;
  return string_view(a.value());
}

std::string Attrs::name(string_view key) const {
  const string_view s = str(key);
  if (!valid_name(s)) {
    fail(key, "bad name " + in_quotes(s) + " in attribute " + in_quotes(key) +
                  ": use letters, digits, '_', '-', '.' (not first)");
  }
  return std::string(s);
}

double Attrs::number(string_view key) const { return to_number(key, str(key)); }
double Attrs::number(string_view key, double fallback) const {
  const auto s = opt_str(key);
  return s ? to_number(key, *s) : fallback;
}

double Attrs::positive(string_view key) const { return check_positive(key, number(key)); }
double Attrs::positive(string_view key, double fallback) const {
  return has(key) ? check_positive(key, number(key)) : fallback;
}

double Attrs::unit_interval(string_view key, double fallback) const {
  const double v = number(key, fallback);
  if (v < 0 || v > 1) fail(key, bad_number(key, str(key), "must be in [0, 1]"));
  return v;
}

int Attrs::resolution(int fallback) const {
  const auto s = opt_str("resolution");
  if (!s) return fallback;
  int v = 0;
  const string_view t = util::trim(*s);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) {
    fail("resolution", bad_number("resolution", *s, "expected an integer"));
  }
  if (v < kMinResolution || v > kMaxResolution) {
    fail("resolution", bad_number("resolution", *s,
                                  "must be in [" + std::to_string(kMinResolution) + ", " +
                                      std::to_string(kMaxResolution) + "]"));
  }
  return v;
}

std::optional<double> Attrs::angle(bool required) const {
  const bool deg = has("deg"), rad = has("rad");
  if (deg && rad) fail("rad", "both deg and rad given on " + tag(el_) + "; use one");
  if (deg) return number("deg") * std::numbers::pi / 180.0;
  if (rad) return number("rad");
  if (required) file_.fail(el_, "missing required attribute 'deg' or 'rad' on " + tag(el_));
  return std::nullopt;
}

Eigen::Vector3d Attrs::axis(string_view key) const {
  const string_view s = util::trim(str(key));
  if (s == "x") return Eigen::Vector3d::UnitX();
  if (s == "y") return Eigen::Vector3d::UnitY();
  if (s == "z") return Eigen::Vector3d::UnitZ();
  const std::vector<string_view> parts = split(s);
  Eigen::Vector3d v;
  bool ok = parts.size() == 3;
  for (int i = 0; ok && i < 3; ++i) ok = parse_double(parts[i], v[i]) == NumberStatus::ok;
  if (!ok || !(v.norm() > 1e-12) || !std::isfinite(v.norm())) {
    fail(key, "bad axis " + in_quotes(str(key)) + ": expected x, y, z or three numbers, not all 0");
  }
  return v.normalized();
}

Eigen::Vector3d Attrs::vector3(string_view key, const Eigen::Vector3d& fallback) const {
  const auto s = opt_str(key);
  if (!s) return fallback;
  const std::vector<string_view> parts = split(*s);
  if (parts.size() != 3) {
    fail(key, "bad value " + in_quotes(*s) + " in attribute " + in_quotes(key) + ": expected three numbers");
  }
  Eigen::Vector3d v;
  for (int i = 0; i < 3; ++i) v[i] = to_number(key, parts[static_cast<std::size_t>(i)]);
  return v;
}

char Attrs::shape_axis(char fallback) const {
  const auto s = opt_str("axis");
  if (!s) return fallback;
  const string_view t = util::trim(*s);
  if (t != "x" && t != "y" && t != "z") {
    fail("axis", "bad axis " + in_quotes(*s) + " on " + tag(el_) + ": expected x, y or z");
  }
  return t.front();
}

XmlColor Attrs::color(string_view key) const {
  const string_view color = util::trim(str(key));
  const std::vector<string_view> parts = split(color);
  if (parts.size() == 3) {
    double c[3];
    for (int i = 0; i < 3; ++i) {
      if (parse_double(parts[i], c[i]) != NumberStatus::ok || c[i] < 0 || c[i] > 1) {
        fail(key, "bad colour " + in_quotes(color) + ": each of r g b must be a number in "
                                                     "[0, 1]");
      }
    }
    return {{c[0], c[1], c[2]}, std::nullopt};
  }
  std::string lower(color);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const std::optional<Color> named = parts.size() == 1 ? css_color(lower) : std::nullopt;
  if (!named) {
    fail(key, "unknown colour name " + in_quotes(color) +
                  ": use a CSS colour name (e.g. steelblue) or \"r g b\" in [0, 1]");
  }
  return {*named, std::move(lower)};
}

std::string Attrs::bad_number(string_view key, string_view text, const std::string& why) {
  return "bad number " + in_quotes(text) + " in attribute " + in_quotes(key) + ": " + why;
}

double Attrs::to_number(string_view key, string_view text) const {
  double v = 0;
  switch (parse_double(text, v)) {
    case NumberStatus::ok: return v;
    case NumberStatus::range: fail(key, bad_number(key, text, "out of range"));
    case NumberStatus::syntax: break;
  }
  fail(key, bad_number(key, text, "expected a finite decimal number"));
}

double Attrs::check_positive(string_view key, double v) const {
  if (!(v > 0)) fail(key, bad_number(key, str(key), "must be > 0"));
  return v;
}

std::vector<pugi::xml_node> elements(const XmlFile& file, pugi::xml_node el) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c : el.children()) {
    if (c.type() == pugi::node_element) {
      out.push_back(c);
    } else {
      file.fail(c, "unexpected text inside " + tag(el));
    }
  }
  return out;
}

void unknown_element(const XmlFile& file, pugi::xml_node child, pugi::xml_node parent,
                     string_view expected) {
  file.fail(child, "unknown element " + tag(child) + " in " + tag(parent) + " (expected " +
                       std::string(expected) + ")");
}

void expect_no_children(const XmlFile& file, pugi::xml_node el) {
  for (pugi::xml_node c : elements(file, el)) unknown_element(file, c, el, "no children");
}

bool apply_transform(const XmlFile& file, pugi::xml_node el, Eigen::Isometry3d& X) {
  const string_view name = el.name();
  if (name == "translate") {
    const Attrs a(file, el, {"x", "y", "z"});
    expect_no_children(file, el);
    X.translate(Eigen::Vector3d(a.number("x", 0), a.number("y", 0), a.number("z", 0)));
    return true;
  }
  if (name == "rotate") {
    const Attrs a(file, el, {"axis", "deg", "rad"});
    expect_no_children(file, el);
    const Eigen::Vector3d axis = a.axis("axis");
    X.rotate(Eigen::AngleAxisd(*a.angle(true), axis));
    return true;
  }
  return false;
}

Eigen::Isometry3d transform_list(const XmlFile& file, pugi::xml_node el) {
  const Attrs a(file, el, {});
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (pugi::xml_node c : elements(file, el)) {
    if (!apply_transform(file, c, X)) unknown_element(file, c, el, "<translate>, <rotate>");
  }
  return X;
}

}  // namespace cosim::scene::detail
