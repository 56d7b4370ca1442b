// The windowed app under a display (Xvfb in ./run test): 30 frames with the CPU backend,
// then a screenshot whose pixels must be the colormap of the field the CPU backend computes.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include "app_runner.hpp"
#include "side_bar.hpp"
#include "sim/core/model.hpp"

using namespace ss;
using namespace ss::test;

namespace {
bool have_display() {
  const char* d = std::getenv("DISPLAY");
  return d && *d;
}
}  // namespace

TEST(Window, ThirtyFramesOnTheCpuBackendThenAScreenshotWithTheColormapAtKnownCells) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  const auto dir = scratch_dir("window");
  const std::string png = (dir / "shot.png").string();
  // 30 frames x 3 steps: the picture shows step 90 (auto range, viridis, nearest).
  const RunResult r = run_app("--frames 30 --screenshot '" + png +
                              "' --device cpu --size 64x48 --steps-per-frame 3 --width 640 --height 480"
                              " --colormap viridis --range auto --sampling nearest");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step 90"), std::string::npos) << r.output;
  const render::Image img = render::read_png(png);
  ASSERT_EQ(img.width, 640);
  ASSERT_EQ(img.height, 480);

  const HostHeat2D<float> sim = cpu_field(64, 48, 90);
  const render::ValueRange range = interior_range(sim);
  EXPECT_GE(expect_field_pixels(img, sim, render::Colormap::viridis, range, 5), 100);

  // Above the field (it is wider than tall): the background.
  const auto bg = pixel(img, 260, 5);
  EXPECT_EQ(bg[0], render::kBackgroundRgb[0]);
  EXPECT_EQ(bg[1], render::kBackgroundRgb[1]);
  EXPECT_EQ(bg[2], render::kBackgroundRgb[2]);
  // The colorbar: its top is the hot end of viridis (yellow), its bottom the cold end.
  const render::FrameLayout l = render::frame_layout(640, 480, true);
  const int cx = static_cast<int>(l.colorbar.x + l.colorbar.width / 2);
  const auto top = pixel(img, cx, static_cast<int>(l.colorbar.y) + 1);
  const auto bottom = pixel(img, cx, static_cast<int>(l.colorbar.y + l.colorbar.height) - 2);
  EXPECT_GT(top[0], 230);
  EXPECT_GT(top[1], 210);
  EXPECT_LT(top[2], 70);
  EXPECT_LT(bottom[0], 80);
  EXPECT_LT(bottom[1], 20);
  EXPECT_GT(bottom[2], 70);
  std::filesystem::remove_all(dir);
}

TEST(Window, Heat3DScreenshotShowsTheThreeMiddleSlicesInTheColormapAndTheSketch) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  const auto dir = scratch_dir("window3d");
  const std::string png = (dir / "shot.png").string();
  // 10 frames x 3 steps: the picture shows step 30 of a 25x19x14 volume (odd, not cubic).
  const RunResult r = run_app("--model heat3d --frames 10 --screenshot '" + png +
                              "' --device cpu --size 25x19x14 --steps-per-frame 3 --width 800 --height 600"
                              " --colormap viridis --range auto --sampling nearest");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step 30"), std::string::npos) << r.output;
  const render::Image img = render::read_png(png);
  ASSERT_EQ(img.width, 800);
  ASSERT_EQ(img.height, 600);
  EXPECT_GE(expect_slice_pixels(img, cpu_field3d(25, 19, 14, 30), render::Colormap::viridis, 2), 150);

  // The sketch (bottom right quarter of the field area) draws lines on the background.
  const render::PixelRect a = render::frame_layout(800, 600, true).field_area;
  int lit = 0;
  for (int y = static_cast<int>(a.y + a.height / 2 + 4); y < a.y + a.height; ++y)
    for (int x = static_cast<int>(a.x + a.width / 2 + 4); x < a.x + a.width; ++x)
      lit += pixel(img, x, y) != std::array<int, 3>{render::kBackgroundRgb[0], render::kBackgroundRgb[1],
                                                    render::kBackgroundRgb[2]};
  EXPECT_GT(lit, 300) << "the wireframe box and the three slice planes";
  std::filesystem::remove_all(dir);
}

TEST(Window, ScreenshotWithTheUiShowsThePanels) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  const auto dir = scratch_dir("window_ui");
  const std::string plain = (dir / "plain.png").string(), with_ui = (dir / "ui.png").string();
  const std::string common = " --device cpu --size 64x48 --steps-per-frame 1 --width 800 --height 600";
  ASSERT_EQ(run_app("--frames 3 --screenshot '" + plain + "'" + common).exit_code, 0);
  ASSERT_EQ(run_app("--frames 3 --screenshot-ui --screenshot '" + with_ui + "'" + common).exit_code, 0);
  const render::Image a = render::read_png(plain), b = render::read_png(with_ui);
  ASSERT_EQ(a.rgba.size(), b.rgba.size());
  // The Simulation panel sits at the top left; the view alone has only background there.
  int differing = 0;
  for (int y = 12; y < 200; y += 4)
    for (int x = 12; x < 300; x += 4) differing += pixel(a, x, y) != pixel(b, x, y);
  EXPECT_GT(differing, 500);
  std::filesystem::remove_all(dir);
}

TEST(Window, RecordWithADisplayDrawsThroughAWindowAndGivesTheSameFrames) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  const auto dir = scratch_dir("record_window");
  const std::string common =
      " --frames 3 --width 320 --height 240 --size 40x30 --steps-per-frame 5 --device cpu --range -1.2:1.3";
  const RunResult windowed = run_app("record --out '" + (dir / "w").string() + "'" + common);
  ASSERT_EQ(windowed.exit_code, 0) << windowed.output;
  EXPECT_NE(windowed.output.find("record: window"), std::string::npos) << windowed.output;
  const RunResult headless = run_app("record --headless --out '" + (dir / "h").string() + "'" + common);
  ASSERT_EQ(headless.exit_code, 0) << headless.output;
  EXPECT_NE(headless.output.find("record: headless"), std::string::npos) << headless.output;
  for (const char* name : {"frame_00000.png", "frame_00002.png"}) {
    const render::Image a = render::read_png((dir / "w" / name).string());
    const render::Image b = render::read_png((dir / "h" / name).string());
    EXPECT_EQ(a.rgba, b.rgba) << name << ": the same view whatever the context";
  }
  std::filesystem::remove_all(dir);
}

// The side bar: at 1280x720 with the panels in the picture, no view pixel lies under a
// panel. The views' rectangles come from the app's own layout (side_bar.hpp); the side
// bar's background is the commonest colour left of kSideBarWidth; it must not appear in
// the views, and every view (the 2D field, or each 3D slice) must hold colormap pixels.
namespace {

class EveryModelsSideBar : public ::testing::TestWithParam<const Model*> {};

std::string model_name(const ::testing::TestParamInfo<const Model*>& p) { return p.param->info().name; }

bool near(const std::array<int, 3>& a, const std::array<int, 3>& b, int tolerance) {
  for (int c = 0; c < 3; ++c)
    if (std::abs(a[c] - b[c]) > tolerance) return false;
  return true;
}

}  // namespace

namespace {

/// The side bar test's body; `ab`: with A/B on (B at the model's lowest order), whose
/// A, B and B - A panes are the views.
void check_no_view_pixel_under_the_panels(const ModelInfo& info, bool ab) {
  const auto dir = scratch_dir("side_bar_" + info.name + (ab ? "_ab" : ""));
  const std::string png = (dir / "shot.png").string();
  const int width = 1280, height = 720;
  const std::string ab_args = ab ? " --ab order=" + std::to_string(info.orders.front()) : "";
  const RunResult r = run_app("--model " + info.name + " --device cpu --width 1280 --height 720 --frames 5"
                              " --screenshot-ui --screenshot '" + png + "'" + ab_args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const render::Image img = render::read_png(png);
  ASSERT_EQ(img.width, width);
  ASSERT_EQ(img.height, height);

  // The side bar: its commonest colour is its background, which covers most of it.
  const int bar = static_cast<int>(app::kSideBarWidth);
  std::map<std::array<int, 3>, int> counts;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < bar; ++x) ++counts[pixel(img, x, y)];
  const auto panel_bg = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                          return a.second < b.second;
                        })->first;
  const std::array<int, 3> view_bg{render::kBackgroundRgb[0], render::kBackgroundRgb[1], render::kBackgroundRgb[2]};
  EXPECT_GT(counts[panel_bg], bar * height / 3) << "the side bar fills the left of the window";
  EXPECT_FALSE(near(panel_bg, view_bg, 4)) << "the panels' background differs from the views'";

  // The views: the frame right of the side bar, the field (or its slices) and the colorbar.
  const render::FrameLayout layout = app::view_layout(width, height, true, app::kSideBarWidth);
  EXPECT_EQ(layout.field_area.x, app::kSideBarWidth);
  ASSERT_GT(layout.colorbar.width, 0);
  EXPECT_GE(layout.colorbar.x, layout.field_area.x + layout.field_area.width) << "the colorbar stays with the views";
  std::vector<render::PixelRect> views;
  if (info.dims == 3 || ab) {  // A/B: A, B and B - A in the first three panes
    const auto panes = slice_panes(layout.field_area);
    views.assign(panes.begin(), panes.end());
  } else {
    views.push_back(layout.field_area);
  }
  // No panel background anywhere right of the side bar (a pixel of margin for its edge).
  int covered = 0;
  for (int y = 0; y < height; ++y)
    for (int x = bar + 1; x < width; ++x) covered += near(pixel(img, x, y), panel_bg, 2);
  EXPECT_EQ(covered, 0) << "pixels of panel background over the views";
  // Each view holds colormap pixels: neither background, over most of its (fitted) field.
  for (std::size_t k = 0; k < views.size(); ++k) {
    const render::PixelRect& v = views[k];
    int lit = 0, total = 0;
    for (int y = static_cast<int>(v.y) + 20; y < static_cast<int>(v.y + v.height) - 1; ++y)  // below the pane's label
      for (int x = static_cast<int>(v.x) + 1; x < static_cast<int>(v.x + v.width) - 1; ++x) {
        const auto p = pixel(img, x, y);
        lit += !near(p, view_bg, 2) && !near(p, panel_bg, 2);
        ++total;
      }
    std::printf("[ side bar ] %s view %zu at (%.0f, %.0f) %.0fx%.0f: %d of %d pixels coloured (%.0f%%)\n",
                info.name.c_str(), k, v.x, v.y, v.width, v.height, lit, total, 100.0 * lit / total);
    EXPECT_GT(lit, total / 3) << info.name << " view " << k << ": too few colormap pixels";
  }
  std::printf("[ side bar ] %s: side bar background rgb(%d, %d, %d) on %d of %d pixels left of x = %d; "
              "%d right of it\n",
              info.name.c_str(), panel_bg[0], panel_bg[1], panel_bg[2], counts[panel_bg], bar * height, bar, covered);
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST_P(EveryModelsSideBar, AtTheDefaultSizeNoViewPixelLiesUnderThePanels) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  check_no_view_pixel_under_the_panels(GetParam()->info(), false);
}

TEST_P(EveryModelsSideBar, WithABOnNoViewPixelLiesUnderThePanelsEither) {
  if (!have_display()) GTEST_SKIP() << "no DISPLAY: run under Xvfb (./run test does)";
  check_no_view_pixel_under_the_panels(GetParam()->info(), true);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryModelsSideBar, ::testing::ValuesIn(models()), model_name);
