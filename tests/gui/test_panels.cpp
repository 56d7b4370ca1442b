// The panels of every registered model, drawn by Dear ImGui without a window: the
// Simulation panel is generated from the model's description (its parameters, variants,
// orders and presets), so each model's panel must lay out and end cleanly: no ImGui
// assertion (an abort fails the test), every Begin matched by its End and every ID
// pushed popped, and the edits a click makes go into the settings, not elsewhere.
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include "panels.hpp"
#include "settings.hpp"

using namespace ss;
using namespace ss::app;

namespace {

/// One ImGui context with a built font atlas, sized like the default window.
class PanelFrames {
 public:
  PanelFrames() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // no renderer: the atlas is built and never uploaded
  }
  ~PanelFrames() { ImGui::DestroyContext(); }
  PanelFrames(const PanelFrames&) = delete;
  PanelFrames& operator=(const PanelFrames&) = delete;

  /// Draws every panel for `s` once; returns the window stack depth and the ID stack
  /// depth of the implicit window left open after the panels (1 and 1 when balanced).
  std::pair<int, int> frame(SimSettings& s, const SimStatus& status) {
    ImGui::NewFrame();
    ViewSettings view;
    BrushSettings brush;
    bool with_ui = false;
    bool help_open = true;  // the keys-and-mouse window too
    draw_panels(s, view, brush, with_ui, status, false, RecordingStatus{}, FrameInfo{}, render::ValueRange{0, 1},
                nullptr, &help_open);
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    const std::pair<int, int> depth{g.CurrentWindowStack.Size, g.CurrentWindow ? g.CurrentWindow->IDStack.Size : -1};
    ImGui::Render();
    return depth;
  }
};

class EveryModelsPanel : public ::testing::TestWithParam<const Model*> {};

std::string name_of(const ::testing::TestParamInfo<const Model*>& p) { return p.param->info().name; }

}  // namespace

TEST_P(EveryModelsPanel, DrawsFromTheDescriptionAndEndsBalanced) {
  const Model& model = *GetParam();
  PanelFrames frames;
  SimSettings s;
  switch_model(s, model, false);
  const SimSettings before = s;
  SimStatus status;
  status.backend = "CPU";
  status.headline = model.info().title + ", the panel test";
  status.dt = 1e-6;
  status.dt_limit = 2e-6;
  for (int k = 0; k < 3; ++k) {  // ImGui lays a window out on its first frame and draws it from the second
    const auto [windows, ids] = frames.frame(s, status);
    EXPECT_EQ(windows, 1) << "a Begin without its End in frame " << k;
    EXPECT_EQ(ids, 1) << "a PushID without its PopID in frame " << k;
  }
  // Drawing edits nothing by itself.
  EXPECT_EQ(s.model, before.model);
  EXPECT_EQ(s.params, before.params);
  EXPECT_EQ(s.variant, before.variant);
  EXPECT_EQ(s.order, before.order);
  // The side bar lists the model's parameters (hidden ones aside).
  const ImGuiWindow* panel = ImGui::FindWindowByName(kSideBarName);
  ASSERT_NE(panel, nullptr);
  EXPECT_GT(panel->ContentSize.y, 100.0f);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryModelsPanel, ::testing::ValuesIn(models()), name_of);
