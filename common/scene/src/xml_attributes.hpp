#pragma once
// Values of XML scene attributes and small value elements: names, numbers, angles, axes,
// colours, <translate>/<rotate> lists. Every error names the file and line (the attribute's
// own line when it has one). Internal to cosim::scene.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Geometry>
#include <pugixml.hpp>

#include "cosim/scene/color.hpp"
#include "xml_file.hpp"

namespace cosim::scene::detail {

/// "'s'" for messages.
std::string in_quotes(std::string_view s);
/// "<name>" of an element, for messages.
std::string tag(pugi::xml_node el);
/// The white-space separated words of `s`.
std::vector<std::string_view> split(std::string_view s);
/// Names become file names and scope prefixes: letters, digits, '_', '-', '.' (not first).
bool valid_name(std::string_view s);

/// Strict decimal: the whole text is one finite number.
enum class NumberStatus { ok, syntax, range };
NumberStatus parse_double(std::string_view text, double& value);

/// A colour attribute: the RGB and, when written as a CSS name, that name in lower case.
struct XmlColor {
  Color rgb;
  std::optional<std::string> name;
};

/// The attributes of one element: unknown and repeated names are rejected up front, so every
/// attribute written is either used or reported.
class Attrs {
 public:
  Attrs(const XmlFile& file, pugi::xml_node el, std::initializer_list<std::string_view> allowed);

  bool has(std::string_view name) const { return attr(name); }
  pugi::xml_attribute attr(std::string_view name) const;
  [[noreturn]] void fail(std::string_view name, const std::string& message) const;

  std::string_view str(std::string_view name) const;
  std::optional<std::string_view> opt_str(std::string_view name) const;

  /// A name (joint, id, probe, instance, file); see valid_name.
  std::string name(std::string_view key) const;

  double number(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  /// Strictly positive length or factor.
  double positive(std::string_view key) const;
  double positive(std::string_view key, double fallback) const;
  double unit_interval(std::string_view key, double fallback) const;
  /// resolution= in [kMinResolution, kMaxResolution], `fallback` when absent.
  int resolution(int fallback) const;

  /// deg= or rad= [rad out]; exactly one when required, at most one otherwise.
  std::optional<double> angle(bool required) const;
  /// "x" | "y" | "z" | "ax ay az" -> unit vector.
  Eigen::Vector3d axis(std::string_view key) const;
  /// Three numbers "x y z" (`fallback` when absent).
  Eigen::Vector3d vector3(std::string_view key, const Eigen::Vector3d& fallback) const;
  /// 'x' | 'y' | 'z' for shapes (`fallback` when absent).
  char shape_axis(char fallback) const;
  /// A CSS colour name (any case) or "r g b" in [0, 1].
  XmlColor color(std::string_view key) const;

 private:
  static std::string bad_number(std::string_view key, std::string_view text,
                                const std::string& why);
  double to_number(std::string_view key, std::string_view text) const;
  double check_positive(std::string_view key, double v) const;

  const XmlFile& file_;
  pugi::xml_node el_;
};

/// The element children of `el`, in order; text inside scene elements is an error.
std::vector<pugi::xml_node> elements(const XmlFile& file, pugi::xml_node el);
[[noreturn]] void unknown_element(const XmlFile& file, pugi::xml_node child,
                                  pugi::xml_node parent, std::string_view expected);
void expect_no_children(const XmlFile& file, pugi::xml_node el);

/// <translate> or <rotate>: right-multiplies X and returns true; false for other elements.
bool apply_transform(const XmlFile& file, pugi::xml_node el, Eigen::Isometry3d& X);
/// An element holding only a translate/rotate list (<pre>, <post>, <base>).
Eigen::Isometry3d transform_list(const XmlFile& file, pugi::xml_node el);

}  // namespace cosim::scene::detail
