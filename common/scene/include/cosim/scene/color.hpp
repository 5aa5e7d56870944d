#pragma once
/// \file
/// RGB colours and the CSS named-colour table.

#include <optional>
#include <span>
#include <string_view>

namespace cosim::scene {

/// An RGB colour, each channel in [0, 1].
struct Color {
  double r = 0, g = 0, b = 0;
};

/// The 148 CSS Color Module 4 named colours (lower case, "gray" and "grey" both) -> RGB in
/// [0, 1]. Case-sensitive: pass lower case. nullopt if unknown.
std::optional<Color> css_color(std::string_view name);

/// All CSS colour names, sorted (for error messages and tests).
std::span<const std::string_view> css_color_names();

}  // namespace cosim::scene
