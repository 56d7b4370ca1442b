// Sources placed with the mouse and the seismogram section, through the functions the
// window calls, in a headless EGL context on the CPU backend: a Shift+click on a slice puts
// a source at the clicked node (and a click on a node outside the sources' range is refused
// with a visible note, nothing changed); the seismogram is sampled into a texture and the
// side bar's Sources & seismograms section draws it; its export writes .npy and CSV.
#include <gtest/gtest.h>

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <thread>

#include "live_simulation.hpp"
#include "mouse_input.hpp"
#include "panels.hpp"
#include "seismogram_image.hpp"
#include "sim/core/error.hpp"
#include "sim/core/npy.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/view_layout.hpp"
#include "view_pass.hpp"

using namespace ss;
using namespace ss::app;

namespace {

class SourcesInTheApp : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      context_ = std::make_unique<render::HeadlessContext>();
    } catch (const Error& e) {
      GTEST_SKIP() << "no headless GL context: " << e.what();
    }
    for (const Model* m : models())
      if (!m->info().source_kinds.empty() && m->info().dims == 3) model_ = m;
    if (!model_) GTEST_SKIP() << "no registered model with point sources";
    switch_model(settings_, *model_, false);
    settings_.nx = 30, settings_.ny = 26, settings_.nz = 22;
    settings_.slice = {8, 11, 13};  // z of XY, y of XZ, x of YZ
    settings_.adaptive_steps = false;
    settings_.steps_per_frame = 3;
  }
  /// The pixel at the centre of cell (u, v) of slice view `view` in an 800 x 600 frame.
  std::array<double, 2> pixel(LiveSimulation& sim, int view, int u, int v) const {
    const render::PixelRect area = render::frame_layout(800, 600, true).field_area;
    const int nu = sim.texture(view).nx(), nv = sim.texture(view).ny();
    const render::PixelRect r = render::field_rect(slice_layout(area).slice[static_cast<std::size_t>(view)], nu, nv, {});
    return {r.x + (u + 0.5) * r.width / nu, r.y + (nv - v - 0.5) * r.height / nv};
  }
  MouseSample place_click(LiveSimulation& sim, int view, int u, int v) const {
    MouseSample m;
    m.fb_width = 800;
    m.fb_height = 600;
    const auto p = pixel(sim, view, u, v);
    m.x = p[0];
    m.y = p[1];
    m.left = true;  // the source tool's place mode is on by default
    return m;
  }
  std::unique_ptr<render::HeadlessContext> context_;
  const Model* model_ = nullptr;
  SimSettings settings_;
};

TEST_F(SourcesInTheApp, AClickInPlaceModePlacesASourceAtTheClickedNodeAndTheSeismogramIsDrawn) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  ViewSettings view;
  BrushSettings brush;
  MouseState state;
  SourceTool tool;
  tool.f0_hz = 14;
  const std::size_t before = sim.simulation().sources().size();
  // The XZ slice (y = 11): cell (u 9, v 6) is node (x 9, y 11, z 6).
  apply_mouse(place_click(sim, 1, 9, 6), sim, view, brush, state, nullptr, &tool);
  ASSERT_EQ(sim.simulation().sources().size(), before + 1) << sim.status().note;
  const SourceSpec placed = sim.simulation().sources().back();
  EXPECT_EQ(placed.node, (std::array<int, 3>{9, 11, 6}));
  EXPECT_EQ(placed.f0_hz, 14);
  EXPECT_EQ(placed.delay_s, sim.simulation().time()) << "it fires at the time of the click";
  EXPECT_NE(sim.status().note.find("placed"), std::string::npos) << sim.status().note;
  // Held down, the same click places nothing more.
  apply_mouse(place_click(sim, 1, 12, 6), sim, view, brush, state, nullptr, &tool);
  EXPECT_EQ(sim.simulation().sources().size(), before + 1);
  MouseSample up;
  apply_mouse(up, sim, view, brush, state, nullptr, &tool);
  // The YZ slice (x = 13) at cell (u 0, v 5): node (x 13, y 0, z 5), outside the sources'
  // nodes 1 .. n - 1: refused with a note, nothing changed.
  apply_mouse(place_click(sim, 2, 0, 5), sim, view, brush, state, nullptr, &tool);
  EXPECT_EQ(sim.simulation().sources().size(), before + 1);
  EXPECT_NE(sim.status().note.find("outside the grid"), std::string::npos) << sim.status().note;

  // The section asks for the seismogram; frames sample it into a texture.
  for (int f = 0; f < 12; ++f) {  // samples are 0.25 s apart
    sim.request_seismogram();
    sim.advance(settings_, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  }
  const SimStatus& st = sim.status();
  ASSERT_NE(st.seismogram_texture, 0u) << st.seismogram;
  EXPECT_GT(st.seismogram_width, 0);
  EXPECT_GT(st.seismogram_height, 0);
  EXPECT_EQ(st.sources.size(), before + 1);
  EXPECT_NE(st.seismogram.find("receivers"), std::string::npos) << st.seismogram;
  // The views' fourth pane shows it too, through the colormap machinery (a field texture).
  ASSERT_NE(sim.seismogram_texture(), nullptr);
  const std::vector<float> pane = sim.seismogram_texture()->download();
  EXPECT_TRUE(std::any_of(pane.begin(), pane.end(), [](float v) { return v != 0; })) << "the traces have started";

  // The side bar draws the section with the seismogram's picture in it.
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1280, 4000);  // tall: every open section fits unscrolled
  io.DeltaTime = 1.0f / 60;
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  bool with_ui = false;
  bool drawn = false, visible = false;
  for (int frame = 0; frame < 2; ++frame) {  // the side bar settles its size in its first frame
    ImGui::NewFrame();
    const PanelActions a = draw_panels(settings_, view, brush, with_ui, st, false, RecordingStatus{}, FrameInfo{},
                                       render::ValueRange{0, 1}, nullptr, nullptr, &tool);
    ImGui::Render();
    visible = a.seismogram_visible;
    const ImDrawData* d = ImGui::GetDrawData();
    for (int l = 0; l < d->CmdListsCount; ++l)
      for (const ImDrawCmd& c : d->CmdLists[l]->CmdBuffer)
        drawn |= c.TextureId == reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(st.seismogram_texture));
  }
  EXPECT_TRUE(visible) << "the Sources & seismograms section is open by default";
  ImGui::DestroyContext();
  EXPECT_TRUE(drawn) << "no draw command uses the seismogram's texture";

  // Its export button's action writes the traces.
  const auto dir = std::filesystem::temp_directory_path() / ("ss_gui_seismo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string base = (dir / "s").string();
  EXPECT_NE(sim.export_seismogram(base).find("wrote"), std::string::npos) << sim.status().note;
  const NpyArray npy = read_npy(base + ".npy");
  const Seismogram s = read_seismogram_csv(base + ".csv");
  ASSERT_EQ(npy.shape.size(), 3u);
  EXPECT_EQ(npy.values, s.values);
  EXPECT_EQ(static_cast<int>(npy.shape[0]), s.rows());
  std::filesystem::remove_all(dir);
}

TEST_F(SourcesInTheApp, RemoveAndReceiverActionsChangeTheRunningSimulation) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  ViewSettings view;
  RangeFollower range;
  PanelActions a;
  a.remove_source = 0;
  const std::size_t before = sim.simulation().sources().size();
  ASSERT_GT(before, 0u);
  apply_actions(a, sim, settings_, view, range);
  EXPECT_EQ(sim.simulation().sources().size(), before - 1);
  a = {};
  a.set_receivers = parse_receiver_layout("yz:4:grid:2");
  apply_actions(a, sim, settings_, view, range);
  EXPECT_EQ(sim.simulation().receivers()->axis, 0);
  EXPECT_EQ(sim.simulation().receivers()->position, 4);
  a.set_receivers = parse_receiver_layout("yz:99");  // outside: a note, the receivers stay
  apply_actions(a, sim, settings_, view, range);
  EXPECT_EQ(sim.simulation().receivers()->position, 4);
  EXPECT_NE(sim.status().note.find("outside the grid"), std::string::npos) << sim.status().note;
}

TEST_F(SourcesInTheApp, AModelWithoutSourcesShowsNoSeismogramPane) {
  LiveSimulation sim(settings_);
  for (int f = 0; f < 40 && !sim.seismogram_texture(); ++f) {
    sim.advance(settings_, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  ASSERT_NE(sim.seismogram_texture(), nullptr);
  const Model* plain = nullptr;
  for (const Model* m : models())
    if (m->info().source_kinds.empty() && m->info().dims == 3) plain = m;
  if (!plain) GTEST_SKIP() << "every 3D model has sources";
  SimSettings other = settings_;
  switch_model(other, *plain, false);
  other.nx = 20, other.ny = 18, other.nz = 16;
  sim.apply(other);
  sim.advance(other, true);
  EXPECT_EQ(sim.model().name, plain->info().name);
  EXPECT_EQ(sim.seismogram_texture(), nullptr);
  EXPECT_TRUE(sim.status().sources.empty());
}

TEST(SeismogramImage, TimeRunsDownOneColumnPerReceiverAndZeroIsTheMiddleColour) {
  Seismogram s;
  s.components = {"p"};
  s.nodes = {{1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
  s.values = {0, 0, 0, 1, 0, -1};  // two steps
  const SeismogramImage img = seismogram_image(s);
  ASSERT_EQ(img.width, 3);
  ASSERT_EQ(img.height, 2);
  EXPECT_EQ(img.peak, 1);
  auto px = [&](int x, int y) { return &img.rgba[(static_cast<std::size_t>(y) * img.width + x) * 4]; };
  EXPECT_EQ(px(0, 0)[0], px(1, 1)[0]);  // zeros alike
  EXPECT_GT(px(0, 1)[0], px(2, 1)[0]);  // +1 red, -1 blue
  EXPECT_LT(px(0, 1)[2], px(2, 1)[2]);
}

}  // namespace

// Shift+click stays the probe's on a model with sources: it places a probe, not a source;
// with place mode off a plain click paints and places nothing.
TEST_F(SourcesInTheApp, ShiftClickPlacesAProbeAndPlaceModeOffPaints) {
  LiveSimulation sim(settings_);
  sim.advance(settings_, false);
  ViewSettings view;
  BrushSettings brush;
  MouseState state;
  SourceTool tool;
  ASSERT_TRUE(tool.place_mode) << "place mode is on by default";
  const std::size_t before = sim.simulation().sources().size();
  MouseSample probe = place_click(sim, 0, 7, 5);
  probe.shift = true;
  apply_mouse(probe, sim, view, brush, state, &settings_, &tool);
  EXPECT_EQ(sim.simulation().sources().size(), before);
  ASSERT_EQ(settings_.probes.size(), 1u);
  EXPECT_EQ(settings_.probes[0], (std::array<int, 3>{7, 5, 8}));  // the XY slice at z = 8
  apply_mouse(MouseSample{}, sim, view, brush, state, &settings_, &tool);
  tool.place_mode = false;
  apply_mouse(place_click(sim, 0, 9, 9), sim, view, brush, state, &settings_, &tool);
  EXPECT_EQ(sim.simulation().sources().size(), before);
  EXPECT_EQ(settings_.probes.size(), 1u);
  EXPECT_TRUE(state.painting) << "with place mode off a click paints";
}
