#include <gtest/gtest.h>

#include <algorithm>

#include "cosim/scene/color.hpp"

namespace {

using cosim::scene::Color;
using cosim::scene::css_color;

void expect_rgb(std::string_view name, int r, int g, int b) {
  const std::optional<Color> c = css_color(name);
  ASSERT_TRUE(c.has_value()) << name;
  EXPECT_DOUBLE_EQ(c->r, r / 255.0) << name;
  EXPECT_DOUBLE_EQ(c->g, g / 255.0) << name;
  EXPECT_DOUBLE_EQ(c->b, b / 255.0) << name;
}

TEST(SceneCssColor, KnownNames) {
  expect_rgb("steelblue", 70, 130, 180);
  expect_rgb("black", 0, 0, 0);
  expect_rgb("white", 255, 255, 255);
  expect_rgb("rebeccapurple", 102, 51, 153);
  expect_rgb("lightgoldenrodyellow", 250, 250, 210);
  expect_rgb("yellowgreen", 154, 205, 50);  // last in the table
  expect_rgb("aliceblue", 240, 248, 255);   // first in the table
}

// CSS, not X11: these differ between the two tables.
TEST(SceneCssColor, CssValuesNotX11) {
  expect_rgb("gray", 128, 128, 128);
  expect_rgb("green", 0, 128, 0);
  expect_rgb("maroon", 128, 0, 0);
  expect_rgb("purple", 128, 0, 128);
}

TEST(SceneCssColor, GrayAndGreyAreBothThere) {
  expect_rgb("dimgray", 105, 105, 105);
  expect_rgb("dimgrey", 105, 105, 105);
  expect_rgb("lightslategrey", 119, 136, 153);
}

TEST(SceneCssColor, UnknownNames) {
  EXPECT_FALSE(css_color("blurple").has_value());
  EXPECT_FALSE(css_color("").has_value());
  EXPECT_FALSE(css_color("SteelBlue").has_value());  // lower case only; the loader lowers
  EXPECT_FALSE(css_color("steelblue ").has_value());
  EXPECT_FALSE(css_color("transparent").has_value());
}

TEST(SceneCssColor, TableHas148SortedUniqueNames) {
  const auto names = cosim::scene::css_color_names();
  EXPECT_EQ(names.size(), 148u);
  EXPECT_TRUE(std::adjacent_find(names.begin(), names.end(),
                                 [](auto a, auto b) { return !(a < b); }) == names.end());
  for (std::string_view n : names) EXPECT_TRUE(css_color(n).has_value()) << n;
}

}  // namespace
