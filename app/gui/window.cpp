// The window: GLFW + Dear ImGui (GLFW and OpenGL 3 backends), the field view, mouse and keys.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "gui.hpp"
#include "recorder.hpp"
#include "stencilscope/error.hpp"
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/gpu_timer.hpp"
#include "stencilscope/render/ui_renderer.hpp"
#include "view_pass.hpp"
#include "window_system.hpp"

namespace ss::app {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// Mouse state between frames (drags paint along the path, not only at frame samples).
struct MouseState {
  bool painting = false;
  int pane = 0;  ///< the view the drag started on (heat 3D: a slice)
  double last_x = 0, last_y = 0;
};

/// Mouse and keys that ImGui does not want: paint, pan, zoom, shortcuts.
void handle_input(GLFWwindow* window, double fb_scale, LiveSimulation& sim, SimSettings& settings, ViewSettings& view,
                  const BrushSettings& brush, MouseState& mouse, PanelActions& actions) {
  const ImGuiIO& io = ImGui::GetIO();
  int fbw = 0, fbh = 0;
  glfwGetFramebufferSize(window, &fbw, &fbh);
  const render::FrameLayout layout = render::frame_layout(fbw, fbh, view.style.colorbar);
  double cx = 0, cy = 0;
  glfwGetCursorPos(window, &cx, &cy);
  const double px = cx * fb_scale, py = cy * fb_scale;

  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) settings.paused = !settings.paused;
    if (ImGui::IsKeyPressed(GLFW_KEY_R)) actions.reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_P) || ImGui::IsKeyPressed(GLFW_KEY_F12)) actions.screenshot = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_H)) view.show_ui = !view.show_ui;
    if (ImGui::IsKeyPressed(GLFW_KEY_F)) actions.reset_view = true;
  }
  // The view under the cursor: heat 2D the field (zoomable), heat 3D one of the slices (fitted).
  const bool slices = sim.views() == 3;
  int pane = 0;
  const render::PixelRect& area = layout.field_area;
  std::optional<SlicePick> pick;
  if (slices) {
    pick = pick_slice(area, {std::array{sim.texture(0).nx(), sim.texture(0).ny()},
                             std::array{sim.texture(1).nx(), sim.texture(1).ny()},
                             std::array{sim.texture(2).nx(), sim.texture(2).ny()}},
                      px, py);
    pane = pick ? pick->view : -1;
  }
  const bool over_field = slices ? pick.has_value() : area.contains(px, py);
  if (io.WantCaptureMouse || !over_field || (mouse.painting && pane != mouse.pane)) {
    mouse.painting = false;
    return;
  }
  const int nx = sim.texture(pane).nx(), ny = sim.texture(pane).ny();
  if (io.MouseWheel != 0 && !slices)
    view.style.transform = render::zoom_about(view.style.transform, area, nx, ny, px, py, std::pow(1.15, io.MouseWheel));
  const bool ctrl = io.KeyCtrl;
  const bool left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  const bool right = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
  const bool middle = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  if (middle || (ctrl && left)) {
    if (!slices)
      view.style.transform = render::pan_by(view.style.transform, area, nx, ny, io.MouseDelta.x * fb_scale,
                                            io.MouseDelta.y * fb_scale);
    mouse.painting = false;
    return;
  }
  // Cell coordinates of a pixel on the painted view.
  auto cell_at = [&](double x, double y) -> std::array<double, 2> {
    if (!slices) return render::pixel_to_cell(area, nx, ny, view.style.transform, x, y);
    const render::PixelRect& p = slice_layout(area).slice[static_cast<std::size_t>(pane)];
    return render::pixel_to_cell(p, nx, ny, {}, x, y);
  };
  if (left || right) {
    const double value = left ? brush.hot : brush.cold;
    const auto to = cell_at(px, py);
    auto from = to;
    if (mouse.painting) from = cell_at(mouse.last_x, mouse.last_y);
    // Dabs along the drag, half a radius apart, so fast strokes leave no gaps.
    const double length = std::hypot(to[0] - from[0], to[1] - from[1]);
    const int dabs = std::min(64, 1 + static_cast<int>(length / std::max(1.0, brush.radius_cells * 0.5)));
    for (int k = 1; k <= dabs; ++k) {
      const double f = static_cast<double>(k) / dabs;
      sim.paint_view(pane, from[0] + (to[0] - from[0]) * f, from[1] + (to[1] - from[1]) * f, brush.radius_cells, value);
    }
    mouse.painting = true;
    mouse.pane = pane;
    mouse.last_x = px;
    mouse.last_y = py;
  } else {
    mouse.painting = false;
  }
}

}  // namespace

int run_window(const WindowOptions& options) {
  GlfwSession glfw;  // throws when there is no display
  GlfwWindow window(options.width, options.height, "Stencilscope", true);
  glfwSwapInterval(options.frames > 0 ? 0 : 1);  // scripted runs need not wait for vsync
  const std::string gl = render::load_gl(&glfwGetProcAddress);
  std::fprintf(stderr, "stencilscope: %s\n", gl.c_str());

  ImGuiSession imgui;
  if (!ImGui_ImplGlfw_InitForOpenGL(window.get(), true)) throw Error("ImGui's GLFW backend failed to initialize");
  struct GlfwBackendGuard {
    ~GlfwBackendGuard() { ImGui_ImplGlfw_Shutdown(); }
  } glfw_backend;
  render::UiRenderer ui;

  SceneOptions scene = options.scene;
  SimSettings& settings = scene.sim;
  ViewSettings& view = scene.view;
  BrushSettings& brush = scene.brush;
  LiveSimulation sim(settings);
  ViewPass pass;
  if (!pass.error().empty()) sim.set_error(pass.error());
  RangeFollower range;
  MouseState mouse;
  bool pictures_with_ui = options.screenshot_ui;
  RecordingStatus recording;
  std::unique_ptr<FrameRecorder> recorder;
  FrameInfo frame_info;
  render::GpuTimer render_timer;
  auto last_frame = std::chrono::steady_clock::now();

  for (int frame = 1; !glfwWindowShouldClose(window.get()); ++frame) {
    glfwPollEvents();
    int fbw = 0, fbh = 0, ww = 0, wh = 0;
    glfwGetFramebufferSize(window.get(), &fbw, &fbh);
    glfwGetWindowSize(window.get(), &ww, &wh);
    if (fbw == 0 || fbh == 0) {  // minimized
      glfwWaitEventsTimeout(0.1);
      continue;
    }
    frame_info.frame_ms = ms_since(last_frame);
    last_frame = std::chrono::steady_clock::now();

    ui.new_frame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    PanelActions actions;
    if (view.show_ui)
      actions = draw_panels(settings, view, brush, pictures_with_ui, sim.status(), sim.gpu_available(), recording,
                            frame_info, range.drawn());
    handle_input(window.get(), ww > 0 ? static_cast<double>(fbw) / ww : 1.0, sim, settings, view, brush, mouse, actions);

    try {
      apply_actions(actions, sim, settings, view, range);
      sim.apply(settings);
      sim.advance(settings, recorder != nullptr);  // recording: fixed steps per frame, waited for
    } catch (const Error& e) {
      sim.set_error(e.what());
    }
    view.style.range = range.update(view, sim.field_stats());

    bool want_screenshot = actions.screenshot;
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<render::Image> view_only, with_ui;
    bool ui_ended = false;
    try {
      render_timer.begin();
      pass.draw(sim, fbw, fbh, view.style);
      const bool capture = want_screenshot || recorder || (options.frames > 0 && frame == options.frames);
      if (capture) view_only = pass.read();
      pass.target().blit_to_default(fbw, fbh);
      ImGui::Render();
      ui_ended = true;
      if (view.show_ui) ui.render(ImGui::GetDrawData());
      render_timer.end();
      if (const auto gpu_ms = render_timer.last_ms()) frame_info.render_gpu_ms = *gpu_ms;
      if (capture) with_ui = render::Image{fbw, fbh, render::read_default_framebuffer(fbw, fbh)};
    } catch (const render::GLError& e) {
      if (!ui_ended) ImGui::EndFrame();
      render_timer.end();
      sim.set_error(e.what());
    }
    frame_info.render_ms = ms_since(t0);

    try {
      if (want_screenshot && view_only) {
        const std::string file = timestamped_name() + ".png";
        render::write_png(file, pictures_with_ui ? *with_ui : *view_only);
        recording.last_message = "saved " + file;
        std::fprintf(stderr, "stencilscope: saved %s\n", file.c_str());
      }
      if (actions.toggle_recording) {
        if (recorder) {
          recorder->finish();
          recording.last_message = fmt::format("recorded {} frames: {}", recorder->frames(), recorder->description());
          recorder.reset();
        } else {
          recorder = std::make_unique<FrameRecorder>(timestamped_name() + ".mp4", fbw, fbh, 30);
          recording.description = recorder->description();
        }
      }
      if (recorder && view_only) {
        const render::Image& img = pictures_with_ui ? *with_ui : *view_only;
        recorder->add(img);
      }
    } catch (const Error& e) {
      recorder.reset();
      recording.last_message = std::string("recording stopped: ") + e.what();
    }
    recording.active = recorder != nullptr;
    recording.frames = recorder ? recorder->frames() : 0;

    if (options.frames > 0 && frame == options.frames) {
      if (!view_only) throw Error("the last frame could not be drawn: " + sim.status().error);
      render::write_png(options.screenshot, options.screenshot_ui ? *with_ui : *view_only);
      std::fprintf(stderr, "stencilscope: %d frames, step %ld: saved %s\n", frame, sim.status().steps_done,
                   options.screenshot.c_str());
      break;
    }
    glfwSwapBuffers(window.get());
  }
  if (recorder) recorder->finish();
  return 0;
}

}  // namespace ss::app
