// The video path's own RGBA -> YUV 4:2:0 conversion (ffmpeg gets planar YUV).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cosim/visual/vtk/video_encoder.hpp"

namespace cosim::test {
namespace {

TEST(Video, RgbaToYuv420IsBt709LimitedRangeAndFlipsRows) {
  // 2x4 RGBA image, rows bottom-up: bottom two rows red, top two rows white; alpha ignored.
  const int w = 2, h = 4;
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w * h * 4), 17);
  for (int row = 0; row < h; ++row) {
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgba[static_cast<std::size_t>((row * w + x) * 4)];
      if (row < 2) {
        p[0] = 255, p[1] = 0, p[2] = 0;
      } else {
        p[0] = p[1] = p[2] = 255;
      }
    }
  }
  std::vector<std::uint8_t> yuv(static_cast<std::size_t>(w * h * 3 / 2));
  visual::rgba_bottom_up_to_yuv420(rgba.data(), w, h, yuv.data());
  // Output is top-down: white first (Y 235, neutral chroma), then red (BT.709: 63, 102, 240).
  EXPECT_EQ(yuv[0], 235);
  EXPECT_EQ(yuv[3], 235);
  EXPECT_EQ(yuv[4], 63);
  EXPECT_EQ(yuv[7], 63);
  const std::uint8_t* u = yuv.data() + w * h;
  const std::uint8_t* v = u + (w / 2) * (h / 2);
  EXPECT_EQ(u[0], 128);
  EXPECT_EQ(v[0], 128);
  EXPECT_EQ(u[1], 102);
  EXPECT_EQ(v[1], 240);
}

}  // namespace
}  // namespace cosim::test
