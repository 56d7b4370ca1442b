// LiveSimulation on the CPU backend, in a headless EGL context: live order changes keep
// the field, resizing restarts it, refused edits leave the running scene alone, a field
// that turns non-finite pauses stepping with a message instead of ending the app.
#include <gtest/gtest.h>

#include <cmath>
#include <chrono>
#include <algorithm>
#include <thread>
#include <cstring>
#include <limits>
#include <memory>

#include "live_simulation.hpp"
#include "mouse_input.hpp"
#include "stencilscope/render/view_layout.hpp"
#include "sim/models/heat2d/heat2d_solver.hpp"
#include "side_bar.hpp"
#include "view_pass.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "sim/models/deriv3d/deriv3d.hpp"
#include "sim/models/heat3d/heat3d_solver.hpp"
#include "sim/models/heat2d/heat_params.hpp"
#include "stencilscope/render/headless_context.hpp"

using namespace ss;
using namespace ss::app;

namespace {

/// The heat configurations the settings describe, built the way the models build them.
Heat2DConfig heat2d_config(const SimSettings& s) {
  const ModelConfig c = to_model_config(s);
  Heat2DConfig h;
  h.nx = s.nx;
  h.ny = s.ny;
  h.order = s.order;
  apply_heat_params(c, h);
  return h;
}
Heat3DConfig heat3d_config(const SimSettings& s) {
  const ModelConfig c = to_model_config(s);
  Heat3DConfig h;
  h.nx = s.nx;
  h.ny = s.ny;
  h.nz = s.nz;
  h.order = s.order;
  apply_heat_params(c, h);
  return h;
}

class LiveSimulationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = std::make_unique<render::HeadlessContext>();
    } catch (const Error& e) {
      GTEST_SKIP() << "no headless GL context: " << e.what();
    }
    settings_.nx = 48;
    settings_.ny = 40;
    settings_.variant = "cpu";
    settings_.adaptive_steps = false;
    settings_.steps_per_frame = 4;
  }
  std::unique_ptr<render::HeadlessContext> context_;
  SimSettings settings_;
};

}  // namespace

TEST_F(LiveSimulationTest, FramesAdvanceByTheFixedStepsAndOrderChangesKeepTheField) {
  LiveSimulation sim(settings_);
  for (int k = 0; k < 3; ++k) {
    sim.advance(settings_, false);
    EXPECT_EQ(sim.queued_batches(), 0) << "the CPU runs each batch before the frame: nothing is queued ahead";
  }
  EXPECT_EQ(sim.status().steps_done, 12);
  EXPECT_EQ(sim.status().upload_path, UploadPath::cpu_backend);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_TRUE(sim.field_stats()->finite);
  settings_.order = 4;
  sim.apply(settings_);
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 16) << "an order change must not restart the field";
  EXPECT_EQ(sim.config().order, 4);
}

TEST_F(LiveSimulationTest, ResizingRestartsTheFieldWithANewTexture) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 4);
  settings_.nx = 64;
  sim.apply(settings_);
  EXPECT_EQ(sim.status().steps_done, 0);
  EXPECT_EQ(sim.texture().nx(), 64);
  EXPECT_EQ(sim.config().size[0], 64);
}

TEST_F(LiveSimulationTest, RefusedEditsAreUndoneAndTheSceneKeepsRunning) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  SimSettings bad = settings_;
  bad.params["dt"] = 1.0;  // far above the stability limit
  sim.apply(bad);
  EXPECT_EQ(bad.params, settings_.params) << "the refused dt is put back";
  EXPECT_NE(sim.status().note.find("stability limit"), std::string::npos) << sim.status().note;
  EXPECT_TRUE(sim.status().error.empty());
  sim.advance(bad, false);
  EXPECT_EQ(sim.status().steps_done, 8);
}

TEST_F(LiveSimulationTest, ReferenceVariantStepsLiveInDouble) {
  // Batches of 4 steps with the double reference: the field shown is the reference
  // after as many steps, rounded to float; its state stays double between batches
  // (stepping from the rounded field each batch would not match bit for bit).
  settings_.variant = "reference";
  LiveSimulation sim(settings_);
  EXPECT_EQ(settings_.variant, "reference");
  const Heat2DSetup setup = make_heat2d_setup(heat2d_config(settings_));
  for (int k = 0; k < 4; ++k) sim.advance(settings_, false);
  SimSettings paused = settings_;
  paused.paused = true;
  sim.advance(paused, false);  // uploads the field as it is now, starts nothing
  const long steps = sim.status().steps_done;
  ASSERT_EQ(steps, 16) << "four frames, one batch of 4 steps each";
  // The live reference starts from the field on screen: the initial condition in float.
  const std::vector<float> start = extract_interior(heat2d_initial_field<float>(setup), setup.grid);
  const std::vector<double> start_d(start.begin(), start.end());
  ReferenceHeat2D ref(setup);
  ref.load_interior(start_d.data(), 0);
  ref.step(static_cast<int>(steps));
  const std::vector<double> expected = ref.interior();
  const std::vector<float> shown = sim.texture(0).download();
  ASSERT_EQ(shown.size(), expected.size());
  for (std::size_t k = 0; k < shown.size(); ++k) ASSERT_EQ(shown[k], static_cast<float>(expected[k])) << k;
}

TEST_F(LiveSimulationTest, NonFiniteFieldPausesWithAMessageAndResetRecovers) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  sim.paint(20, 20, 3, std::numeric_limits<double>::infinity());
  sim.advance(settings_, false);  // uploads the painted field and sees Inf
  const long steps = sim.status().steps_done;
  EXPECT_FALSE(sim.status().error.empty());
  EXPECT_NE(sim.status().error.find("NaN or Inf"), std::string::npos) << sim.status().error;
  for (int k = 0; k < 3; ++k) sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, steps) << "stepping stays paused";
  sim.reset();
  EXPECT_TRUE(sim.status().error.empty());
  sim.advance(settings_, false);
  EXPECT_EQ(sim.status().steps_done, 4);
  EXPECT_TRUE(sim.field_stats()->finite);
}

TEST_F(LiveSimulationTest, ALoadedStateContinuesBitForBitAsOneRun) {
  // A checkpoint's state (here: the model's own CPU simulation after 5 steps) loaded into
  // the live simulation, then 4 more steps: the texture is the field after 9 steps.
  const Model& m = find_model("heat2d");
  const ModelConfig c = to_model_config(settings_);
  auto ahead = m.create(c, Backend::cpu, "cpu");
  ahead->start_steps(5);
  LiveSimulation sim(settings_);
  sim.load_state(ahead->copy_state());
  EXPECT_EQ(sim.status().steps_done, 5);
  sim.advance(settings_, false);  // one batch of 4 steps
  SimSettings paused = settings_;
  paused.paused = true;
  sim.advance(paused, false);
  ASSERT_EQ(sim.status().steps_done, 9);
  ahead->start_steps(4);
  const std::vector<float> want = ahead->copy_state().fields.at(0);
  const std::vector<float> shown = sim.texture(0).download();
  ASSERT_EQ(shown.size(), want.size());
  EXPECT_EQ(0, std::memcmp(shown.data(), want.data(), want.size() * sizeof(float)));
  EXPECT_EQ(sim.copy_state().fields.at(0), want);
  SimState wrong;
  wrong.fields.emplace_back(7, 0.0f);
  EXPECT_THROW(sim.load_state(wrong), Error) << "a state of another grid is refused";
}

TEST_F(LiveSimulationTest, DiagnosticsSampleTheStateOverTimeAndExportAsCsv) {
  settings_.params["boundary"] = std::string("periodic");  // the total heat is conserved
  LiveSimulation sim(settings_);
  SimSettings paused = settings_;
  paused.paused = true;
  sim.request_diagnostics();
  sim.advance(paused, false);  // the first request samples at once: the initial field, nothing stepped
  const DiagnosticSeries& d = sim.status().diagnostics;
  ASSERT_EQ(d.time.size(), 1u);
  const std::vector<std::string> want_names{"min", "max", "mean", "total heat"};
  ASSERT_EQ(d.names, want_names);
  const SimState st = sim.copy_state();
  const std::vector<float>& f = st.fields.at(0);
  double sum = 0;
  for (float x : f) sum += x;
  EXPECT_EQ(d.values[0][0], *std::min_element(f.begin(), f.end()));
  EXPECT_EQ(d.values[1][0], *std::max_element(f.begin(), f.end()));
  EXPECT_DOUBLE_EQ(d.values[2][0], sum / f.size());
  const double h = 1.0 / settings_.nx;
  EXPECT_NEAR(d.values[3][0], sum * h * h, 1e-12 * std::abs(sum * h * h));
  for (int k = 0; k < 4; ++k) sim.advance(settings_, false);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  sim.request_diagnostics();
  sim.advance(settings_, false);
  ASSERT_EQ(d.time.size(), 2u);
  EXPECT_GT(d.steps[1], d.steps[0]);
  EXPECT_NEAR(d.values[3][1], d.values[3][0], 1e-5 * std::abs(d.values[3][0])) << "periodic: the total heat is kept";
  const std::string csv = sim.diagnostics_csv();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time,step,min,max,mean,total heat");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  sim.reset();
  EXPECT_TRUE(sim.status().diagnostics.time.empty()) << "a reset starts the plots again";
}

// The batch length: automatic (0) is one 60 Hz frame on the GPU, whose batches each end
// in a snapshot of the views, and 10 ms on the CPU; a budget the user set wins on both.
TEST(FrameBudget, AutomaticPerDeviceAndTheUsersValueWins) {
  SimSettings s;
  EXPECT_EQ(s.frame_budget_ms, 0.0) << "automatic by default";
  EXPECT_EQ(frame_budget_ms(s, true), kGpuFrameBudgetMs);
  EXPECT_EQ(frame_budget_ms(s, false), kCpuFrameBudgetMs);
  EXPECT_LT(kGpuFrameBudgetMs, 1000.0 / 60) << "a batch must fit in a 60 Hz frame";
  s.frame_budget_ms = 4.5;
  EXPECT_EQ(frame_budget_ms(s, true), 4.5);
  EXPECT_EQ(frame_budget_ms(s, false), 4.5);
}

TEST_F(LiveSimulationTest, AdaptiveBatchesGrowTowardsTheBudget) {
  settings_.adaptive_steps = true;
  // Far above what a 48x40 batch takes, even on a machine loaded tenfold (at 200 ms a batch
  // descheduled for 100 ms on 2 oversubscribed cores once stopped the doubling).
  settings_.frame_budget_ms = 10000.0;
  LiveSimulation sim(settings_);
  for (int k = 0; k < 8; ++k) sim.advance(settings_, false);
  // A 48x40 step takes microseconds: batches double each frame from 1 (growth is capped at 2x a frame).
  EXPECT_GT(sim.status().batch_steps, 16);
  EXPECT_GT(sim.status().steps_done, 8);
}

TEST_F(LiveSimulationTest, ValidationAgainstTheAnalyticSolutionIsSmall) {
  LiveSimulation sim(settings_);
  sim.request_validation();
  sim.advance(settings_, false);
  sim.advance(settings_, false);
  const Validation& v = sim.status().validation;
  ASSERT_TRUE(v.available) << v.why_not;
  EXPECT_LT(v.rel_l2, 1e-4);
  EXPECT_LT(v.rel_linf, 1e-4);
  EXPECT_GT(v.rel_l2, 0.0);  // float rounding and truncation error are never exactly zero
}

TEST_F(LiveSimulationTest, GpuVariantWithoutADeviceFallsBackToTheCpuAndSaysSo) {
  if (cuda_available()) GTEST_SKIP() << "there is a CUDA device";
  settings_.variant = "stream";
  LiveSimulation sim(settings_);
  EXPECT_EQ(settings_.variant, "cpu");
  EXPECT_EQ(sim.status().backend, "CPU");
  EXPECT_NE(sim.status().note.find("CPU backend"), std::string::npos) << sim.status().note;
}

TEST_F(LiveSimulationTest, PaintedHeatAndColdReachTheTexture) {
  settings_.paused = true;  // nothing diffuses between the paint and the upload
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_LT(sim.field_stats()->range.hi, 5.0);
  sim.paint(10, 10, 2.5, 5.0);   // left drag: hot
  sim.paint(30, 25, 2.5, -4.0);  // right drag: cold
  sim.advance(settings_, false);
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_EQ(sim.field_stats()->range.hi, 5.0);
  EXPECT_EQ(sim.field_stats()->range.lo, -4.0);
  EXPECT_EQ(sim.status().steps_done, 0) << "painting does not step";
}

namespace {

/// The heat 3D scene of the tests: odd sides, the CPU backend, 4 steps a frame.
SimSettings heat3d_settings(const SimSettings& base) {
  SimSettings s = base;
  s.model = "heat3d";
  s.nx = 27;
  s.ny = 21;
  s.nz = 17;
  s.order = 4;
  s.variant = "cpu";
  return s;
}

/// Expects each slice texture to hold, bit for bit, the host field's slice at the simulation's positions.
void expect_textures_are_slices(const LiveSimulation& sim, const HostHeat3D<float>& host) {
  for (SliceAxis axis : kAllSliceAxes) {
    const int v = static_cast<int>(axis);
    std::vector<float> want;
    extract_slice(host.field(), host.setup().grid, axis, sim.slices()[static_cast<std::size_t>(v)], want);
    const std::vector<float> got = sim.texture(v).download();
    ASSERT_EQ(got.size(), want.size()) << to_string(axis);
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << to_string(axis);
  }
}

}  // namespace

TEST_F(LiveSimulationTest, Heat3DAdvancesAndItsThreeSliceTexturesHoldTheHostFieldsSlices) {
  SimSettings s = heat3d_settings(settings_);
  LiveSimulation sim(s);
  EXPECT_EQ(s.slice, (std::array<int, 3>{8, 10, 13})) << "-1 becomes the middle, written back";
  ASSERT_EQ(sim.views(), 3);
  EXPECT_EQ(sim.texture(0).nx(), 27);
  EXPECT_EQ(sim.texture(0).ny(), 21);
  EXPECT_EQ(sim.texture(1).nx(), 27);
  EXPECT_EQ(sim.texture(1).ny(), 17);
  EXPECT_EQ(sim.texture(2).nx(), 21);
  EXPECT_EQ(sim.texture(2).ny(), 17);
  for (int k = 0; k < 3; ++k) sim.advance(s, false);
  EXPECT_EQ(sim.status().steps_done, 12);
  EXPECT_EQ(sim.status().upload_path, UploadPath::cpu_backend);

  HostHeat3D<float> host(make_heat3d_setup(heat3d_config(s)));
  host.step(12);
  expect_textures_are_slices(sim, host);
  // The stats span the three slices (not the volume).
  float lo = 1e30f, hi = -1e30f;
  for (SliceAxis axis : kAllSliceAxes) {
    std::vector<float> slice;
    extract_slice(host.field(), host.setup().grid, axis, s.slice[static_cast<std::size_t>(axis)], slice);
    for (float v : slice) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  ASSERT_TRUE(sim.field_stats().has_value());
  EXPECT_EQ(sim.field_stats()->range.lo, lo);
  EXPECT_EQ(sim.field_stats()->range.hi, hi);
  EXPECT_TRUE(sim.field_stats()->finite);

  // Moving the slices re-uploads them without stepping; out-of-range positions are clamped to the middle.
  s.slice = {0, 20, 99};
  s.paused = true;
  sim.apply(s);
  EXPECT_EQ(s.slice, (std::array<int, 3>{0, 20, 13}));
  sim.advance(s, false);
  EXPECT_EQ(sim.status().steps_done, 12);
  expect_textures_are_slices(sim, host);

  // An order change keeps the field.
  s.order = 8;
  s.paused = false;
  sim.apply(s);
  sim.advance(s, false);
  EXPECT_EQ(sim.status().steps_done, 16);
  EXPECT_EQ(sim.config().order, 8);
  EXPECT_EQ(sim.model().name, "heat3d");
}

TEST_F(LiveSimulationTest, PaintingOnASlicePaintsASphereThatShowsInTheThreeSlicesThroughItsCentre) {
  SimSettings s = heat3d_settings(settings_);
  s.slice = {5, 7, 9};  // z, y, x
  s.paused = true;
  LiveSimulation sim(s);
  sim.advance(s, false);
  // On the XZ view (u = x, v = z) at y = 7: the sphere's centre is cell (9, 7, 5).
  sim.paint_view(1, 9.5, 5.5, 3.0, 9.0);
  sim.advance(s, false);
  int disc = 0;  // lattice points of a disc of radius 3 about a cell centre
  for (int a = -3; a <= 3; ++a)
    for (int b = -3; b <= 3; ++b) disc += a * a + b * b <= 9;
  const int centre_u[3] = {9, 9, 7}, centre_v[3] = {7, 5, 5};
  for (int v = 0; v < 3; ++v) {
    const std::vector<float> t = sim.texture(v).download();
    int painted = 0;
    for (float x : t) painted += x == 9.0f;
    EXPECT_EQ(painted, disc) << "view " << v;
    EXPECT_EQ(t[static_cast<std::size_t>(centre_v[v]) * sim.texture(v).nx() + centre_u[v]], 9.0f) << "view " << v;
  }
  // Moved off the sphere, the XY slice shows none of it.
  s.slice[0] = 12;
  sim.apply(s);
  sim.advance(s, false);
  int painted = 0;
  for (float x : sim.texture(0).download()) painted += x == 9.0f;
  EXPECT_EQ(painted, 0);
}

TEST_F(LiveSimulationTest, SwitchingTheModelStartsTheOtherModelsScene) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  SimSettings s = heat3d_settings(settings_);
  s.variant = "stream25d";  // apply picks the running device's variant for a new model
  sim.apply(s);
  EXPECT_EQ(s.variant, "cpu");
  EXPECT_EQ(sim.model().name, "heat3d");
  EXPECT_EQ(sim.views(), 3);
  EXPECT_EQ(sim.status().steps_done, 0);
  sim.advance(s, false);
  EXPECT_EQ(sim.status().steps_done, 4);
  s.model = "heat2d";
  s.nx = 48;
  s.ny = 40;
  sim.apply(s);
  EXPECT_EQ(sim.views(), 1);
  EXPECT_EQ(sim.config().size[0], 48);
}

TEST(SlicePicking, APixelOnASliceNamesItsViewAndCellAndTheSketchIsNoSlice) {
  const render::PixelRect area = render::frame_layout(800, 600, true).field_area;
  const std::array<std::array<int, 2>, 3> sizes{{{27, 21}, {27, 17}, {21, 17}}};
  const SliceLayout panes = slice_layout(area);
  for (int k = 0; k < 3; ++k) {
    const auto [nu, nv] = sizes[static_cast<std::size_t>(k)];
    const render::PixelRect r = render::field_rect(panes.slice[static_cast<std::size_t>(k)], nu, nv, {});
    const double s = r.width / nu;
    // The centre of cell (3, 2) of view k: v counts up from the bottom of the slice.
    const auto pick = pick_slice(area, sizes, r.x + 3.5 * s, r.y + (nv - 2 - 0.5) * s);
    ASSERT_TRUE(pick.has_value()) << "view " << k;
    EXPECT_EQ(pick->view, k);
    EXPECT_EQ(static_cast<int>(std::floor(pick->u)), 3) << "view " << k;
    EXPECT_EQ(static_cast<int>(std::floor(pick->v)), 2) << "view " << k;
  }
  EXPECT_FALSE(pick_slice(area, sizes, panes.sketch.x + panes.sketch.width / 2, panes.sketch.y + panes.sketch.height / 2))
      << "the sketch";
  EXPECT_FALSE(pick_slice(area, sizes, area.x + area.width / 2, area.y + 2)) << "the gap between the panes";
}

TEST(SliceSketch, TheBoxFitsItsPaneAndEachSliceCutsWhereItsPositionSays) {
  const render::PixelRect pane{400, 300, 380, 280};
  const int nx = 40, ny = 30, nz = 20;
  const std::array<int, 3> slices{5, 14, 29};  // XY at z = 5, XZ at y = 14, YZ at x = 29
  const std::vector<render::OverlayLine> lines = slice_sketch(pane, nx, ny, nz, slices);
  ASSERT_EQ(lines.size(), 24u) << "12 box edges, then 4 edges per slice plane";
  float x_lo = 1e9f, x_hi = -1e9f, y_lo = 1e9f, y_hi = -1e9f;
  for (const auto& l : lines)
    for (const auto& [x, y] : {std::pair{l.x0, l.y0}, std::pair{l.x1, l.y1}}) {
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  // Centred, 80% of the limiting side, inside the pane.
  EXPECT_NEAR((x_lo + x_hi) / 2, pane.x + pane.width / 2, 0.01);
  EXPECT_NEAR((y_lo + y_hi) / 2, pane.y + pane.height / 2, 0.01);
  EXPECT_TRUE(std::abs((x_hi - x_lo) - 0.8 * pane.width) < 0.01 || std::abs((y_hi - y_lo) - 0.8 * pane.height) < 0.01);
  EXPECT_GE(x_lo, pane.x);
  EXPECT_LE(x_hi, pane.x + pane.width);
  // Lines 8..11 recede along z from the four corners of the z = 0 face; line 8 from the
  // origin. A slice plane's corner lies on the box edge along its own axis, at the
  // fraction (position + 0.5) / extent of it.
  auto along = [](const render::OverlayLine& e, double t) {
    return std::pair{e.x0 + t * (e.x1 - e.x0), e.y0 + t * (e.y1 - e.y0)};
  };
  const auto [zx, zy] = along(lines[8], (slices[0] + 0.5) / nz);
  EXPECT_NEAR(lines[12].x0, zx, 1e-3);
  EXPECT_NEAR(lines[12].y0, zy, 1e-3);
  const auto [yx, yy] = along({lines[3].x1, lines[3].y1, lines[3].x0, lines[3].y0}, (slices[1] + 0.5) / ny);
  EXPECT_NEAR(lines[16].x0, yx, 1e-3) << "XZ plane: on the y edge through the origin";
  EXPECT_NEAR(lines[16].y0, yy, 1e-3);
  const auto [xx, xy] = along(lines[0], (slices[2] + 0.5) / nx);
  EXPECT_NEAR(lines[20].x0, xx, 1e-3) << "YZ plane: on the x edge through the origin";
  EXPECT_NEAR(lines[20].y0, xy, 1e-3);
  for (int k = 0; k < 3; ++k)
    for (int e = 0; e < 4; ++e) EXPECT_EQ(lines[12 + 4 * k + e].rgba, kSliceRgba[k]) << "plane " << k;
}

TEST_F(LiveSimulationTest, APixelOnTheYZSlicePaintsTheSphereAtThatSlicesX) {
  SimSettings s = heat3d_settings(settings_);
  s.slice = {5, 7, 9};
  s.paused = true;
  LiveSimulation sim(s);
  sim.advance(s, false);
  const render::PixelRect area = render::frame_layout(800, 600, true).field_area;
  const std::array<std::array<int, 2>, 3> sizes{{{27, 21}, {27, 17}, {21, 17}}};
  const render::PixelRect r = render::field_rect(slice_layout(area).slice[2], 21, 17, {});
  const double px = r.x + 7.5 * r.width / 21, py = r.y + (17 - 5 - 0.5) * r.width / 21;  // cell (y 7, z 5)
  const auto pick = pick_slice(area, sizes, px, py);
  ASSERT_TRUE(pick.has_value());
  sim.paint_view(pick->view, pick->u, pick->v, 1.0, 6.0);
  sim.advance(s, false);
  // A radius-1 sphere about (9.5, 7.5, 5.5): the XY slice at z = 5 shows a plus sign centred on (9, 7).
  const std::vector<float> xy = sim.texture(0).download();
  EXPECT_EQ(xy[7 * 27 + 9], 6.0f);
  int painted = 0;
  for (float x : xy) painted += x == 6.0f;
  EXPECT_EQ(painted, 5);
}

TEST_F(LiveSimulationTest, Deriv3DSlicesAreTheCpuDerivativesSlicesAndTheAxisRebuildsIt) {
  SimSettings s = settings_;
  s.model = "deriv3d";
  s.nx = 23;
  s.ny = 19;
  s.nz = 17;
  s.order = 6;
  s.variant = "cpu";
  s.params["axis"] = std::string("y");
  s.paused = true;
  LiveSimulation sim(s);
  sim.advance(s, false);
  EXPECT_EQ(sim.views(), 3);
  EXPECT_EQ(sim.model().name, "deriv3d");
  EXPECT_EQ(sim.config().word("axis"), "y");
  auto expect_derivative = [&](Axis axis) {
    Deriv3DConfig c;
    c.nx = s.nx;
    c.ny = s.ny;
    c.nz = s.nz;
    c.order = s.order;
    const Deriv3DSetup d = make_deriv3d_setup(c);
    const std::vector<float> in = deriv3d_input<float>(d);
    std::vector<float> out = in;
    deriv3d_cpu(d, axis, in.data(), out.data());
    for (SliceAxis a : kAllSliceAxes) {
      std::vector<float> want;
      extract_slice(out, d.grid, a, s.slice[static_cast<std::size_t>(a)], want);
      const std::vector<float> got = sim.texture(static_cast<int>(a)).download();
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << to_string(a);
    }
  };
  expect_derivative(Axis::y);
  s.paused = false;
  sim.advance(s, false);
  EXPECT_EQ(sim.status().steps_done, 4) << "a batch of 4 evaluations";
  expect_derivative(Axis::y);
  s.params["axis"] = std::string("z");
  sim.apply(s);
  sim.advance(s, false);
  expect_derivative(Axis::z);
  sim.paint_view(0, 5, 5, 3, 9.0);
  EXPECT_NE(sim.status().note.find("static field"), std::string::npos) << sim.status().note;
}

// The mouse on the heat 2D view, through the same function the window calls.
class MouseOnTheField : public LiveSimulationTest {
 protected:
  MouseSample at(double x, double y) const {
    MouseSample m;
    m.fb_width = 800;
    m.fb_height = 600;
    m.x = x;
    m.y = y;
    return m;
  }
  render::PixelRect area() const { return render::frame_layout(800, 600, view_.style.colorbar).field_area; }
  std::array<double, 2> cell(double x, double y) const {
    return render::pixel_to_cell(area(), settings_.nx, settings_.ny, view_.style.transform, x, y);
  }
  float value_at(const std::vector<float>& field, std::array<double, 2> c) const {
    return field[static_cast<std::size_t>(c[1]) * settings_.nx + static_cast<std::size_t>(c[0])];
  }
  ViewSettings view_;
  BrushSettings brush_;
  MouseState state_;
};

TEST_F(MouseOnTheField, LeftDragPaintsHotAlongThePathAndRightDragCold) {
  settings_.paused = true;
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  brush_.radius_cells = 1.0;
  brush_.hot = 7;
  brush_.cold = -6;
  const render::PixelRect r = area();
  const double y = r.y + r.height * 0.3, x0 = r.x + r.width * 0.2, x1 = r.x + r.width * 0.8;
  MouseSample m = at(x0, y);
  m.left = true;
  apply_mouse(m, sim, view_, brush_, state_);  // press
  m = at(x1, y);
  m.left = true;
  apply_mouse(m, sim, view_, brush_, state_);  // one frame later, far along: dabs fill the gap
  m.left = false;
  apply_mouse(m, sim, view_, brush_, state_);  // release
  EXPECT_FALSE(state_.painting);
  MouseSample c = at(r.x + r.width * 0.5, r.y + r.height * 0.7);
  c.right = true;
  apply_mouse(c, sim, view_, brush_, state_);
  sim.advance(settings_, false);
  const std::vector<float> f = sim.texture(0).download();
  EXPECT_EQ(value_at(f, cell(x0, y)), 7.0f);
  EXPECT_EQ(value_at(f, cell((x0 + x1) / 2, y)), 7.0f) << "the stroke has no gap";
  EXPECT_EQ(value_at(f, cell(x1, y)), 7.0f);
  EXPECT_EQ(value_at(f, cell(c.x, c.y)), -6.0f);
  EXPECT_NE(value_at(f, cell(x0, r.y + r.height * 0.9)), 7.0f) << "nothing painted off the stroke";
}

TEST_F(MouseOnTheField, NothingHappensWhileThePanelsHaveTheMouse) {
  settings_.paused = true;
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  const std::vector<float> before = sim.texture(0).download();
  const render::PixelRect r = area();
  MouseSample m = at(r.x + r.width / 2, r.y + r.height / 2);
  m.left = true;
  m.wheel = 3;
  m.ui_wants_mouse = true;
  apply_mouse(m, sim, view_, brush_, state_);
  sim.advance(settings_, false);
  EXPECT_EQ(sim.texture(0).download(), before);
  EXPECT_EQ(view_.style.transform.zoom, 1.0);
}

TEST_F(MouseOnTheField, WheelZoomsAboutTheCursorAndMiddleDragPans) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  const render::PixelRect r = area();
  const double x = r.x + r.width * 0.3, y = r.y + r.height * 0.6;
  const auto under_cursor = cell(x, y);
  MouseSample m = at(x, y);
  m.wheel = 2;
  apply_mouse(m, sim, view_, brush_, state_);
  EXPECT_GT(view_.style.transform.zoom, 1.2);
  const auto after = cell(x, y);
  EXPECT_NEAR(after[0], under_cursor[0], 1e-6) << "the cell under the cursor stays put";
  EXPECT_NEAR(after[1], under_cursor[1], 1e-6);
  MouseSample drag = at(x, y);
  drag.middle = true;
  drag.dx = 40;
  drag.dy = -25;
  apply_mouse(drag, sim, view_, brush_, state_);
  const auto panned = cell(x + 40, y - 25);
  EXPECT_NEAR(panned[0], under_cursor[0], 1e-6) << "the field moves with the drag";
  EXPECT_NEAR(panned[1], under_cursor[1], 1e-6);
  EXPECT_FALSE(state_.painting) << "panning does not paint";
}

namespace ss {
namespace {

TEST_F(LiveSimulationTest, Hydro3DRunsLiveOnEachPresetWithItsPlots) {
  const Model& m = find_model("hydro3d");
  for (const Preset& pr : m.info().presets) {
    SCOPED_TRACE(pr.name);
    SimSettings s = settings_;
    switch_model(s, m, false);
    s.nx = s.ny = s.nz = 24;
    s.variant = "cpu";
    s.adaptive_steps = false;
    s.steps_per_frame = 2;
    for (const auto& [name, value] : pr.values) s.params[name] = value;
    if (pr.name == "decay") s.params["k"] = 4.0;  // a wave the 24-cell box resolves
    LiveSimulation sim(s);
    for (int frame = 0; frame < 4; ++frame) {
      sim.request_diagnostics();
      sim.advance(s, false);
    }
    EXPECT_TRUE(sim.status().error.empty()) << sim.status().error;
    EXPECT_EQ(sim.status().steps_done, 8);
    const DiagnosticSeries& d = sim.status().diagnostics;
    for (const char* name : {"kinetic energy", "max Mach", "dt"})
      EXPECT_NE(std::find(d.names.begin(), d.names.end(), name), d.names.end()) << name;
    ASSERT_EQ(d.curves.size(), 1u) << "E(k)";
    EXPECT_EQ(d.curves[0].x.size(), 12u);
    EXPECT_TRUE(sim.field_stats()->finite);
  }
}

TEST_F(LiveSimulationTest, ABadMediumFileIsRefusedWithANoteAndTheRunGoesOn) {
  const Model& m = find_model("acoustic3d");
  SimSettings s = settings_;
  switch_model(s, m, false);
  s.nx = s.ny = s.nz = 16;
  s.variant = "cpu";
  s.adaptive_steps = false;
  s.steps_per_frame = 2;
  LiveSimulation sim(s);
  sim.advance(s, false);
  ASSERT_EQ(sim.status().steps_done, 2);
  const std::string missing = ::testing::TempDir() + "stencilscope-live-no-such-vp.npy";
  SimSettings bad = s;
  bad.params["vp_file"] = missing;
  sim.apply(bad);
  EXPECT_NE(sim.status().note.find(missing), std::string::npos) << sim.status().note;
  EXPECT_EQ(bad.params, s.params) << "the refused file is put back";
  EXPECT_TRUE(sim.status().error.empty()) << sim.status().error;
  sim.advance(bad, false);
  EXPECT_EQ(sim.status().steps_done, 4) << "the running field is kept";
  // A good file restarts the field with its medium.
  const std::string good = ::testing::TempDir() + "stencilscope-live-vp.npy";
  const std::vector<float> vp(16 * 16 * 16, 3000.f);
  write_npy(good, vp.data(), {16, 16, 16});
  SimSettings loaded = s;
  loaded.params["vp_file"] = good;
  sim.apply(loaded);
  EXPECT_EQ(sim.status().steps_done, 0);
  EXPECT_EQ(std::get<std::string>(sim.config().params.at("vp_file")), good);
}

TEST_F(LiveSimulationTest, TheMediumOverlayShowsTheLayersOverTheSlicesAndOffChangesNothing) {
  // acoustic3d's layered medium at step 0 (a zero field: one colour in every slice). With the
  // overlay on, the XZ slice shows the four layers as four greys; off, the frame is the one
  // drawn before the overlay was ever on.
  const Model& m = find_model("acoustic3d");
  SimSettings s = settings_;
  switch_model(s, m, false);
  s.nx = s.ny = s.nz = 32;
  s.variant = "cpu";
  s.paused = true;
  s.params["medium"] = std::string("layered");
  LiveSimulation sim(s);
  sim.advance(s, false);
  ASSERT_EQ(sim.status().steps_done, 0);
  ViewPass pass;
  render::ViewStyle style;
  style.range = {-1, 1};
  constexpr int kWidth = 640, kHeight = 480;
  const auto frame = [&] {
    pass.draw(sim, kWidth, kHeight, style);
    return pass.read();
  };
  const render::Image before = frame();
  // The colours down the middle column of the XZ slice's field.
  const render::PixelRect pane = slice_layout(app::view_layout(kWidth, kHeight, style.colorbar, 0).field_area).slice[1];
  const render::PixelRect field = render::field_rect(pane, 32, 32, {});
  const auto column = [&](const render::Image& im) {
    std::vector<std::array<std::uint8_t, 3>> c;
    const int x = static_cast<int>(field.x + field.width / 2);
    for (int y = static_cast<int>(field.y) + 2; y < static_cast<int>(field.y + field.height) - 2; ++y) {
      const std::size_t at = (static_cast<std::size_t>(y) * im.width + x) * 4;
      c.push_back({im.rgba[at], im.rgba[at + 1], im.rgba[at + 2]});
    }
    return c;
  };
  const auto changes = [](const std::vector<std::array<std::uint8_t, 3>>& c) {
    int n = 0;
    for (std::size_t k = 1; k < c.size(); ++k) n += c[k] != c[k - 1];
    return n;
  };
  EXPECT_EQ(changes(column(before)), 0) << "a zero field is one colour";

  style.medium_overlay = true;
  style.medium_opacity = 0.5f;
  ViewSettings view;
  view.style = style;
  PanelActions none;
  RangeFollower range;
  apply_actions(none, sim, s, view, range);  // the window's way of turning it on
  ASSERT_NE(sim.overlay_texture(1), nullptr);
  EXPECT_EQ(sim.overlay_range().lo, 2000);
  EXPECT_EQ(sim.overlay_range().hi, 3500);
  const render::Image on = frame();
  EXPECT_EQ(changes(column(on)), 3) << "three layer boundaries in the XZ slice";
  EXPECT_NE(on.rgba, before.rgba);

  view.style.medium_overlay = style.medium_overlay = false;
  apply_actions(none, sim, s, view, range);
  EXPECT_EQ(sim.overlay_texture(1), nullptr);
  EXPECT_EQ(frame().rgba, before.rgba) << "off: the frame of today, pixel for pixel";
}

}  // namespace
}  // namespace ss

// Probes: each reads its cell of the state (through Simulation::read_cell: on the GPU only
// that value crosses the bus), one sample per step reached, and export as CSV columns.
TEST_F(LiveSimulationTest, ProbesReadTheirCellsOfTheStateAndExportAsCsvColumns) {
  settings_.probes = {{3, 7, 0}, {47, 39, 0}};
  LiveSimulation sim(settings_);
  sim.advance(settings_, true);  // samples the initial field, then steps
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // probes sample at most 20 times a second
  sim.advance(settings_, true);  // samples after the first batch
  const ProbeSeries& p = sim.status().probes;
  ASSERT_EQ(p.cells, settings_.probes);
  ASSERT_EQ(p.time.size(), 2u);
  EXPECT_EQ(p.steps[0], 0);
  EXPECT_EQ(p.steps[1], settings_.steps_per_frame);
  SimSettings paused = settings_;
  paused.paused = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  sim.advance(paused, true);  // samples the second batch's field
  ASSERT_EQ(p.time.size(), 3u);
  const SimState st = sim.copy_state();
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const auto& c = p.cells[k];
    EXPECT_EQ(p.values[k].back(), st.fields.at(0)[static_cast<std::size_t>(c[1]) * settings_.nx + c[0]]) << "probe " << k;
  }
  // A probe added later has empty cells before its first sample; removing one drops its column.
  paused.probes.push_back({10, 11, 0});
  sim.apply(paused);
  sim.advance(paused, true);
  const std::string csv = sim.probes_csv();
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "time,step,temperature at x=3 y=7,temperature at x=47 y=39,temperature at x=10 y=11");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4);
  const std::string first_row = csv.substr(csv.find('\n') + 1, csv.find('\n', csv.find('\n') + 1) - csv.find('\n') - 1);
  EXPECT_EQ(first_row.back(), ',') << "the third probe has no value at step 0: " << first_row;
  paused.probes.erase(paused.probes.begin());
  sim.apply(paused);
  sim.advance(paused, true);
  EXPECT_EQ(sim.status().probes.cells.size(), 2u);
  EXPECT_EQ(sim.status().probes.values.size(), 2u);
  // A probe outside a shrunk grid is dropped.
  paused.nx = 20;
  sim.apply(paused);
  EXPECT_EQ(paused.probes, (std::vector<std::array<int, 3>>{{10, 11, 0}}));
}

TEST_F(LiveSimulationTest, A3DProbeReadsItsCellOfTheVolume) {
  settings_.model = "heat3d";
  settings_.nx = 20;
  settings_.ny = 18;
  settings_.nz = 16;
  settings_.params["initial"] = std::string("hot-spots");
  settings_.probes = {{4, 5, 6}, {19, 0, 15}};
  LiveSimulation sim(settings_);
  sim.advance(settings_, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  sim.advance(settings_, true);
  const SimState st = sim.copy_state();
  const ProbeSeries& p = sim.status().probes;
  ASSERT_EQ(p.time.size(), 2u);
  SimSettings paused = settings_;
  paused.paused = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  sim.advance(paused, true);
  for (std::size_t k = 0; k < 2; ++k) {
    const auto& c = p.cells[k];
    EXPECT_EQ(p.values[k].back(), st.fields.at(0)[(static_cast<std::size_t>(c[2]) * 18 + c[1]) * 20 + c[0]]);
  }
  EXPECT_EQ(sim.probes_csv().substr(0, sim.probes_csv().find('\n')),
            "time,step,temperature at x=4 y=5 z=6,temperature at x=19 y=0 z=15");
}

TEST_F(LiveSimulationTest, ShiftClickPlacesAProbeAtTheCellUnderTheCursor) {
  LiveSimulation sim(settings_);
  ViewSettings view;
  MouseState state;
  MouseSample m;
  m.fb_width = 800;
  m.fb_height = 600;
  const render::FrameLayout layout = render::frame_layout(800, 600, view.style.colorbar);
  const render::PixelRect r = render::field_rect(layout.field_area, settings_.nx, settings_.ny, {});
  const double s = r.width / settings_.nx;
  m.x = r.x + 12.5 * s;                  // cell x 12
  m.y = r.y + (settings_.ny - 30.5) * s;  // cell y 30 (rows grow upwards)
  m.left = true;
  m.shift = true;
  const SimState before = sim.copy_state();
  apply_mouse(m, sim, view, BrushSettings{}, state, &settings_);
  apply_mouse(m, sim, view, BrushSettings{}, state, &settings_);  // held: still one probe
  EXPECT_EQ(settings_.probes, (std::vector<std::array<int, 3>>{{12, 30, 0}}));
  EXPECT_EQ(sim.copy_state().fields, before.fields) << "a shift+click does not paint";
}

// A/B: B starts from A's state and steps with it; the difference is B - A of the view.
TEST_F(LiveSimulationTest, ABRunsStartEqualAndAnIdenticalBStaysExactlyEqual) {
  settings_.ab.enabled = true;  // B changes nothing
  LiveSimulation sim(settings_);
  ASSERT_TRUE(sim.ab_active());
  EXPECT_EQ(sim.status().ab.max_abs, 0.0);
  EXPECT_EQ(sim.simulation_b().copy_state().fields, sim.copy_state().fields) << "both start from the same state";
  for (int k = 0; k < 3; ++k) sim.advance(settings_, true);
  EXPECT_EQ(sim.simulation_b().steps_done(), sim.simulation().steps_done());
  EXPECT_EQ(sim.simulation_b().copy_state().fields, sim.copy_state().fields);
  EXPECT_EQ(sim.status().ab.max_abs, 0.0);
  EXPECT_EQ(sim.status().ab.rel_l2, 0.0);
  EXPECT_FALSE(sim.status().ab.history_b.empty()) << "B's batches are timed too";
  const std::vector<float> diff = sim.ab_texture(1).download();
  EXPECT_TRUE(std::all_of(diff.begin(), diff.end(), [](float x) { return x == 0.0f; }));
}

TEST_F(LiveSimulationTest, ABOrder2Against8DiffersByTheNormOfTheTwoStates) {
  settings_.order = 8;
  settings_.params["initial"] = std::string("hot-spots");
  settings_.ab.enabled = true;
  settings_.ab.order = 2;
  LiveSimulation sim(settings_);
  ASSERT_TRUE(sim.ab_active());
  EXPECT_EQ(sim.simulation_b().config().order, 2);
  EXPECT_EQ(sim.simulation().config().order, 8);
  EXPECT_EQ(sim.simulation_b().dt(), sim.simulation().dt()) << "B takes A's dt (auto would differ by order)";
  EXPECT_EQ(sim.status().ab.rel_l2, 0.0) << "from the same state";
  for (int k = 0; k < 3; ++k) sim.advance(settings_, true);
  SimSettings paused = settings_;
  paused.paused = true;
  sim.advance(paused, true);
  const SimState a = sim.copy_state(), b = sim.simulation_b().copy_state();
  ASSERT_EQ(a.steps_done, b.steps_done);
  double dd = 0, aa = 0, max_abs = 0;
  for (std::size_t k = 0; k < a.fields[0].size(); ++k) {
    const double d = static_cast<double>(b.fields[0][k]) - a.fields[0][k];
    dd += d * d;
    aa += static_cast<double>(a.fields[0][k]) * a.fields[0][k];
    max_abs = std::max(max_abs, std::abs(d));
  }
  const AbStatus& ab = sim.status().ab;
  EXPECT_EQ(ab.steps, a.steps_done);
  EXPECT_GT(ab.rel_l2, 0.0);
  EXPECT_NEAR(ab.rel_l2, std::sqrt(dd / aa), 1e-12 * std::sqrt(dd / aa));
  EXPECT_EQ(ab.max_abs, max_abs);
  const std::vector<float> diff = sim.ab_texture(1).download();
  ASSERT_EQ(diff.size(), a.fields[0].size());
  for (std::size_t k = 0; k < diff.size(); k += 97)
    EXPECT_EQ(diff[k], static_cast<float>(static_cast<double>(b.fields[0][k]) - a.fields[0][k])) << k;
  // A reset starts both again from the initial state.
  sim.reset();
  EXPECT_EQ(sim.simulation_b().copy_state().fields, sim.copy_state().fields);
  EXPECT_EQ(sim.status().ab.max_abs, 0.0);
}

TEST_F(LiveSimulationTest, ABTurnsOnAndOffLiveAndARefusedBLeavesARunning) {
  LiveSimulation sim(settings_);
  EXPECT_FALSE(sim.ab_active());
  sim.advance(settings_, true);
  settings_.ab.enabled = true;
  settings_.ab.variant = "reference";  // float against double
  sim.apply(settings_);
  ASSERT_TRUE(sim.ab_active()) << sim.status().note;
  EXPECT_EQ(sim.simulation_b().steps_done(), sim.simulation().steps_done()) << "B starts where A is";
  sim.advance(settings_, true);
  sim.advance(settings_, true);
  EXPECT_GT(sim.status().ab.rel_l2, 0.0) << "float and double part after a few steps";
  EXPECT_LT(sim.status().ab.rel_l2, 1e-5);
  settings_.ab.params["nx_is_not_a_param"] = 3.0;
  sim.apply(settings_);
  EXPECT_FALSE(sim.ab_active());
  EXPECT_NE(sim.status().note.find("A/B refused"), std::string::npos) << sim.status().note;
  EXPECT_FALSE(settings_.ab.enabled);
  sim.advance(settings_, true);  // A goes on
  settings_.ab = {};
  sim.apply(settings_);
  EXPECT_FALSE(sim.ab_active());
}

TEST_F(LiveSimulationTest, ABOn3DComparesTheXYSlices) {
  settings_.model = "heat3d";
  settings_.nx = 20;
  settings_.ny = 18;
  settings_.nz = 16;
  settings_.params["initial"] = std::string("hot-spots");
  settings_.ab.enabled = true;
  settings_.ab.order = 2;
  LiveSimulation sim(settings_);
  ASSERT_TRUE(sim.ab_active());
  for (int k = 0; k < 2; ++k) sim.advance(settings_, true);
  EXPECT_EQ(sim.ab_texture(1).nx(), 20);
  EXPECT_EQ(sim.ab_texture(1).ny(), 18);
  EXPECT_GT(sim.status().ab.rel_l2, 0.0);
  EXPECT_EQ(sim.status().ab.compared, "the XY slice at z = 8");
}

// Max speed: the views are refreshed after every k-th batch only; the steps go on between.
TEST_F(LiveSimulationTest, MaxSpeedRefreshesTheViewsAfterEveryKthBatchOnly) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  const long uploads = sim.status().uploads;
  settings_.draw_every = 3;
  sim.apply(settings_);
  for (int k = 0; k < 6; ++k) sim.advance(settings_, false);
  EXPECT_EQ(sim.status().uploads, uploads + 2) << "6 batches, a refresh after every third";
  EXPECT_EQ(sim.simulation().steps_done(), 7 * settings_.steps_per_frame) << "every batch stepped";
  const SimState st = sim.copy_state();
  EXPECT_EQ(sim.texture().download(), st.fields.at(0)) << "the last refresh came after the last batch";
  sim.advance(settings_, true);  // recording: each frame is drawn
  EXPECT_EQ(sim.status().uploads, uploads + 3);
}
