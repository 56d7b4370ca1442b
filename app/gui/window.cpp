// The window: GLFW + Dear ImGui (GLFW and OpenGL 3 backends), the field view, mouse and keys.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "checkpoint.hpp"
#include "gui.hpp"
#include "mouse_input.hpp"
#include "recorder.hpp"
#include "sim/core/error.hpp"
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

/// Keys that ImGui does not want (shortcuts); the mouse goes to apply_mouse.
/// `side_bar_px`: the side bar's width in framebuffer pixels (0 when hidden).
void handle_input(GLFWwindow* window, double fb_scale, double side_bar_px, LiveSimulation& sim, SimSettings& settings,
                  ViewSettings& view, const BrushSettings& brush, MouseState& mouse, PanelActions& actions,
                  bool& help_open, const SourceTool& tool) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) settings.paused = !settings.paused;
    if (ImGui::IsKeyPressed(GLFW_KEY_R)) actions.reset = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_P) || ImGui::IsKeyPressed(GLFW_KEY_F12)) actions.screenshot = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_H)) view.show_ui = !view.show_ui;
    if (ImGui::IsKeyPressed(GLFW_KEY_F)) actions.reset_view = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_F1)) help_open = !help_open;
  }
  // Ctrl+S / Ctrl+O also while the path field has the keyboard (ImGui gives them no meaning there).
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S, false)) actions.save_scene = true;
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O, false)) actions.open_scene = true;
  MouseSample m;
  glfwGetFramebufferSize(window, &m.fb_width, &m.fb_height);
  double cx = 0, cy = 0;
  glfwGetCursorPos(window, &cx, &cy);
  m.x = cx * fb_scale;
  m.y = cy * fb_scale;
  m.dx = io.MouseDelta.x * fb_scale;
  m.dy = io.MouseDelta.y * fb_scale;
  m.wheel = io.MouseWheel;
  m.left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  m.right = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
  m.middle = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  m.ctrl = io.KeyCtrl;
  m.shift = io.KeyShift;
  m.ui_wants_mouse = io.WantCaptureMouse;
  m.side_bar_px = side_bar_px;
  apply_mouse(m, sim, view, brush, mouse, &settings, &tool);
}

/// Saves or opens the scene file the View panel names. A file that cannot be read
/// changes nothing: the message goes to the panel and the note banner. A scene opened is
/// left in `opened`: its sources and receivers go on the simulation once it is rebuilt.
void apply_scene_actions(const PanelActions& a, SceneFileStatus& file, LiveSimulation& sim, SimSettings& settings,
                         ViewSettings& view, RangeFollower& range, std::optional<SceneFile>& opened) {
  if (a.save_checkpoint) {
    std::string path(file.path.data());
    if (path.size() > 5 && path.substr(path.size() - 5) == ".toml") path.resize(path.size() - 5);
    path += ".h5";
    try {
      const ModelConfig config = sim.config();
      write_checkpoint(path, sim.model().name, config.size, sim.model().dims,
                       scene_text(to_scene_file(settings, view, sim.simulation())), sim.copy_state(), sim.simulation().time());
      file.last_message = "saved checkpoint " + path;
      file.last_failed = false;
      std::fprintf(stderr, "stencilscope: %s\n", file.last_message.c_str());
    } catch (const Error& e) {
      file.last_message = e.what();
      file.last_failed = true;
      sim.set_note(std::string("could not save the checkpoint: ") + e.what());
    }
  }
  if (!a.save_scene && !a.open_scene) return;
  const std::string path(file.path.data());
  try {
    if (path.empty()) throw Error("no scene file named (type a path next to 'scene file')");
    if (a.save_scene) {
      write_scene(path, settings, view, sim.simulation());
      file.last_message = "saved " + path;
    } else {
      const SceneFile scene = read_scene(path);
      SimSettings next = settings;
      apply_scene_file(scene, next, view);
      if (next.variant.empty()) use_fastest_variant(next, sim.gpu_available());
      settings = std::move(next);
      opened = scene;
      range.restart();
      file.last_message = "opened " + path;
    }
    file.last_failed = false;
    std::fprintf(stderr, "stencilscope: %s\n", file.last_message.c_str());
  } catch (const Error& e) {
    file.last_message = e.what();
    file.last_failed = true;
    sim.set_note(std::string(a.save_scene ? "could not save the scene: " : "could not open the scene: ") + e.what());
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
  LiveSimulation sim(settings, scene.factory);
  if (scene.resume) sim.load_state(*scene.resume);  // a checkpoint: its state, bit for bit
  if (scene.scene_file) apply_scene_sources(*scene.scene_file, sim.simulation_for_setup());
  apply_source_args(scene.sources, sim.simulation_for_setup());  // bad ones end the command in one line
  ViewPass pass;
  if (!pass.error().empty()) sim.set_error(pass.error());
  RangeFollower range;
  MouseState mouse;
  bool pictures_with_ui = options.screenshot_ui;
  RecordingStatus recording;
  SceneFileStatus scene_file;
  bool help_open = false;
  SourceTool source_tool;
  if (!options.scene_path.empty()) {
    const std::size_t n = std::min(options.scene_path.size(), scene_file.path.size() - 1);
    std::copy_n(options.scene_path.begin(), n, scene_file.path.begin());
    scene_file.path[n] = '\0';
  }
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
    const bool panels_drawn = view.show_ui;
    if (panels_drawn)
      actions = draw_panels(settings, view, brush, pictures_with_ui, sim.status(), sim.gpu_available(), recording,
                            frame_info, range.drawn(), &scene_file, &help_open, &source_tool);
    const double fb_scale = ww > 0 ? static_cast<double>(fbw) / ww : 1.0;
    handle_input(window.get(), fb_scale, panels_drawn ? actions.side_bar_width * fb_scale : 0.0, sim, settings, view,
                 brush, mouse, actions, help_open, source_tool);
    // The views lie right of the side bar while it is shown (H may have hidden it just now).
    const double side_bar_px = panels_drawn && view.show_ui ? actions.side_bar_width * fb_scale : 0.0;

    try {
      apply_actions(actions, sim, settings, view, range);
      std::optional<SceneFile> opened;
      apply_scene_actions(actions, scene_file, sim, settings, view, range, opened);
      sim.apply(settings);
      if (opened) apply_scene_sources(*opened, sim.simulation_for_setup());
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
      const bool capture = want_screenshot || recorder || (options.frames > 0 && frame == options.frames);
      // A picture without the UI shows the views over the whole frame, as if the side bar were hidden.
      if (capture && !pictures_with_ui && side_bar_px > 0) {
        pass.draw(sim, fbw, fbh, view.style);
        view_only = pass.read();
      }
      pass.draw(sim, fbw, fbh, view.style, side_bar_px);
      if (capture && !view_only) view_only = pass.read();
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
    try {
      sim.show_due();  // the newest finished batch into the textures, once this frame's drawing is issued
    } catch (const Error& e) {
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
  if (!scene.sources.seismogram.empty()) write_seismogram_files(scene.sources.seismogram, sim.simulation_for_setup());
  return 0;
}

}  // namespace ss::app
