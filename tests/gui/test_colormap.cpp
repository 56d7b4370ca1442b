// Colormap tables (the embedded assets), their interpolation, range modes and colorbar ticks: host only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "stencilscope/render/colormap.hpp"
#include "stencilscope/render/view_layout.hpp"

using namespace ss::render;

namespace {
double luminance(const Rgb& c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }
}  // namespace

TEST(ColormapTables, EveryBuiltInTableHas256EntriesInTheUnitCube) {
  for (Colormap c : kAllColormaps) {
    const ColormapTable& t = colormap_table(c);
    ASSERT_EQ(t.entries.size(), 256u) << to_string(c);
    for (const Rgb& e : t.entries) {
      EXPECT_GE(std::min({e.r, e.g, e.b}), 0.0f) << to_string(c);
      EXPECT_LE(std::max({e.r, e.g, e.b}), 1.0f) << to_string(c);
    }
  }
}

TEST(ColormapTables, ViridisEndsAreThePublishedValues) {
  const ColormapTable& v = colormap_table(Colormap::viridis);
  EXPECT_FLOAT_EQ(v.entries.front().r, 0.267004f);
  EXPECT_FLOAT_EQ(v.entries.front().g, 0.004874f);
  EXPECT_FLOAT_EQ(v.entries.front().b, 0.329415f);
  EXPECT_FLOAT_EQ(v.entries.back().r, 0.993248f);
  EXPECT_FLOAT_EQ(v.entries.back().g, 0.906157f);
  EXPECT_FLOAT_EQ(v.entries.back().b, 0.143936f);
}

TEST(ColormapTables, SequentialMapsGetBrighterMonotonically) {
  for (Colormap c : {Colormap::viridis, Colormap::inferno, Colormap::magma, Colormap::grey}) {
    const auto& e = colormap_table(c).entries;
    for (std::size_t k = 1; k < e.size(); ++k)
      EXPECT_GT(luminance(e[k]), luminance(e[k - 1])) << to_string(c) << " entry " << k;
  }
}

TEST(ColormapTables, DivergingMapIsBlueToRedThroughALightMiddle) {
  const auto& e = colormap_table(Colormap::blue_red).entries;
  EXPECT_GT(e.front().b, e.front().r);
  EXPECT_GT(e.back().r, e.back().b);
  const Rgb mid = colormap_color(colormap_table(Colormap::blue_red), 0.5);
  EXPECT_GT(luminance(mid), luminance(e.front()));
  EXPECT_GT(luminance(mid), luminance(e.back()));
  EXPECT_NEAR(mid.r, mid.b, 0.05);  // close to neutral in the middle
}

TEST(ColormapTables, GreyIsLinear) {
  const ColormapTable& g = colormap_table(Colormap::grey);
  for (double t : {0.0, 0.1, 0.5, 0.77, 1.0}) {
    const Rgb c = colormap_color(g, t);
    EXPECT_NEAR(c.r, t, 1e-6);
    EXPECT_EQ(c.r, c.g);
    EXPECT_EQ(c.g, c.b);
  }
}

TEST(ColormapColor, InterpolatesBetweenEntriesAndClamps) {
  const ColormapTable t = parse_colormap_table("0 0 0\n1 0.5 0\n", "two");
  const Rgb mid = colormap_color(t, 0.5);
  EXPECT_FLOAT_EQ(mid.r, 0.5f);
  EXPECT_FLOAT_EQ(mid.g, 0.25f);
  EXPECT_FLOAT_EQ(colormap_color(t, -3).r, 0.0f);
  EXPECT_FLOAT_EQ(colormap_color(t, 7).r, 1.0f);
}

TEST(ColormapParse, RejectsMalformedAndOutOfRangeLines) {
  EXPECT_THROW(parse_colormap_table("0 0 0\n0 0\n", "x"), ss::Error);
  EXPECT_THROW(parse_colormap_table("0 0 0\n0 0 1.5\n", "x"), ss::Error);
  EXPECT_THROW(parse_colormap_table("0 0 0\n0 0 zero\n", "x"), ss::Error);
  EXPECT_THROW(parse_colormap_table("# only a comment\n0 0 0\n", "x"), ss::Error);
  try {
    parse_colormap_table("0 0 0\n\n0 0 9\n", "file.txt");
    FAIL() << "no throw";
  } catch (const ss::Error& e) {
    EXPECT_NE(std::string(e.what()).find("file.txt:3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_colormap_table("# c\n0 0 0 # black\n\n1 1 1\n", "x").entries.size(), 2u);
}

TEST(ColormapParse, NamesRoundTrip) {
  for (Colormap c : kAllColormaps) EXPECT_EQ(parse_colormap(to_string(c)), c);
  EXPECT_EQ(parse_colormap("gray"), Colormap::grey);
  EXPECT_THROW(parse_colormap("jet"), ss::Error);
}

TEST(RangeModes, FixedIgnoresTheField) {
  const ValueRange r = next_range(RangeMode::fixed, {-1, 2}, {0, 1}, {5, 6}, false);
  EXPECT_EQ(r, (ValueRange{-1, 2}));
}

TEST(RangeModes, AutomaticFollowsTheFieldBothWays) {
  EXPECT_EQ(next_range(RangeMode::automatic, {0, 1}, {0, 10}, {2, 3}, false), (ValueRange{2, 3}));
  EXPECT_EQ(next_range(RangeMode::automatic, {0, 1}, {2, 3}, {-4, 9}, false), (ValueRange{-4, 9}));
}

TEST(RangeModes, ExpandingNeverShrinksUntilReset) {
  ValueRange r = next_range(RangeMode::expanding, {0, 1}, {0, 1}, {0.2, 0.8}, true);
  EXPECT_EQ(r, (ValueRange{0.2, 0.8}));
  r = next_range(RangeMode::expanding, {0, 1}, r, {0.5, 0.6}, false);
  EXPECT_EQ(r, (ValueRange{0.2, 0.8}));
  r = next_range(RangeMode::expanding, {0, 1}, r, {-1, 0.7}, false);
  EXPECT_EQ(r, (ValueRange{-1, 0.8}));
  r = next_range(RangeMode::expanding, {0, 1}, r, {0.4, 0.5}, true);
  EXPECT_EQ(r, (ValueRange{0.4, 0.5}));
}

TEST(RangeModes, NonFiniteFieldKeepsThePreviousRangeAndEmptyRangesAreWidened) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(next_range(RangeMode::automatic, {0, 1}, {2, 3}, {nan, nan}, false), (ValueRange{2, 3}));
  const ValueRange flat = next_range(RangeMode::automatic, {0, 1}, {0, 1}, {4, 4}, false);
  EXPECT_LT(flat.lo, 4.0);
  EXPECT_GT(flat.hi, 4.0);
  EXPECT_NEAR(normalized(4.0, flat), 0.5, 1e-6);
  const ValueRange inverted = next_range(RangeMode::fixed, {3, 1}, {0, 1}, {0, 1}, false);
  EXPECT_LT(inverted.lo, inverted.hi);
}

TEST(ColorbarTicks, AreRoundAndInside) {
  const auto t = colorbar_ticks({0.13, 1.92}, 6);
  ASSERT_GE(t.size(), 3u);
  for (double v : t) {
    EXPECT_GE(v, 0.13);
    EXPECT_LE(v, 1.92);
    const double scaled = v / 0.5;  // step 0.5 here: 0.5, 1.0, 1.5
    EXPECT_NEAR(scaled, std::round(scaled), 1e-9) << v;
  }
  EXPECT_TRUE(colorbar_ticks({1, 1}, 5).empty());
  // A range that starts just above a round number still gets at least two ticks.
  const auto u = colorbar_ticks({1.7e-9, 0.7177}, 4);
  ASSERT_GE(u.size(), 2u);
  EXPECT_LE(u.size(), 4u);
  for (double v : u) EXPECT_TRUE(v >= 1.7e-9 && v <= 0.7177) << v;
  const auto n = colorbar_ticks({-3e-5, 2e-5}, 6);
  ASSERT_GE(n.size(), 2u);
  EXPECT_LE(n.size(), 6u);
}

TEST(ViewLayout, PixelsMapBackToCellsAndZoomKeepsTheCursorCell) {
  const FrameLayout l = frame_layout(800, 600, true);
  EXPECT_EQ(l.field_area.width, 800 - kColorbarStripPx);
  const PixelRect r = field_rect(l.field_area, 200, 100, {});
  EXPECT_NEAR(r.width, 680, 1e-9);  // fits the width: 680 / 200 = 3.4 px per cell
  EXPECT_NEAR(r.height, 340, 1e-9);
  const auto bottom_left = pixel_to_cell(l.field_area, 200, 100, {}, r.x + 0.5, r.y + r.height - 0.5);
  EXPECT_NEAR(bottom_left[0], 0.5 / 3.4, 1e-9);
  EXPECT_NEAR(bottom_left[1], 0.5 / 3.4, 1e-9);
  const ViewTransform z = zoom_about({}, l.field_area, 200, 100, 100, 250, 3.0);
  const auto before = pixel_to_cell(l.field_area, 200, 100, {}, 100, 250);
  const auto after = pixel_to_cell(l.field_area, 200, 100, z, 100, 250);
  EXPECT_NEAR(before[0], after[0], 1e-9);
  EXPECT_NEAR(before[1], after[1], 1e-9);
  const ViewTransform p = pan_by({}, l.field_area, 200, 100, 34, -17);
  EXPECT_NEAR(p.pan_x, -10, 1e-9);
  EXPECT_NEAR(p.pan_y, -5, 1e-9);
}

// The shader's colormap texture (4096 samples, 10 bits a channel, the nearest sample read):
// for every built-in map and t on a fine grid, the colour it draws is within a third of an
// 8-bit level of colormap_color(t), the interpolated table the pixel tests compare with
// (0.16-0.26 measured).
TEST(ColormapTexels, TheShadersSamplesStayWithinAThirdOfAnEightBitLevel) {
  constexpr int kTexels = 4096;
  for (Colormap c : kAllColormaps) {
    const ColormapTable& table = colormap_table(c);
    const std::vector<std::uint32_t> texels = colormap_texels(table, kTexels);
    ASSERT_EQ(texels.size(), static_cast<std::size_t>(kTexels));
    EXPECT_EQ(texels.front() >> 30, 3u) << "opaque";
    double worst = 0;
    for (int k = 0; k <= 200000; ++k) {
      const double t = k / 200000.0;
      const Rgb want = colormap_color(table, t);
      const Rgb got = unpack_rgb10(texels[static_cast<std::size_t>(colormap_sample(t, kTexels))]);
      worst = std::max({worst, std::abs(got.r - want.r) * 255.0, std::abs(got.g - want.g) * 255.0,
                        std::abs(got.b - want.b) * 255.0});
    }
    EXPECT_LT(worst, 1.0 / 3) << to_string(c);
    std::printf("%s: worst %.3f of an 8-bit level\n", std::string(to_string(c)).c_str(), worst);
  }
  EXPECT_EQ(colormap_sample(-1.0, kTexels), 0);
  EXPECT_EQ(colormap_sample(2.0, kTexels), kTexels - 1);
  EXPECT_EQ(colormap_sample(0.5, 3), 1);
  EXPECT_THROW(colormap_texels(colormap_table(Colormap::grey), 1), ss::Error);
}
