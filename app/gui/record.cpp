// `stencilscope record`: N frames, a fixed number of steps each, to a video or PNGs;
// headless through EGL (no GLFW, no X), or through a window when there is a display.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "checkpoint.hpp"
#include "gui.hpp"
#include "recorder.hpp"
#include "sim/core/error.hpp"
#include "stencilscope/render/gl.hpp"
#include "stencilscope/render/gpu_timer.hpp"
#include "stencilscope/render/headless_context.hpp"
#include "stencilscope/render/interop.hpp"
#include "stencilscope/render/render_target.hpp"
#include "stencilscope/render/ui_renderer.hpp"
#include "view_pass.hpp"
#include "window_system.hpp"

#ifdef STENCILSCOPE_HAVE_GLFW
#include <GLFW/glfw3.h>
#endif

namespace ss::app {

namespace {

/// The GL context the recording draws with: EGL when headless, else a window's.
class RecordContext {
 public:
  RecordContext(bool headless, int width, int height) {
    if (headless) {
      egl_ = std::make_unique<render::HeadlessContext>();
      description_ = "headless, " + egl_->description();
      return;
    }
#ifdef STENCILSCOPE_HAVE_GLFW
    glfw_ = std::make_unique<GlfwSession>();
    window_ = std::make_unique<GlfwWindow>(width, height, "Stencilscope (recording)", true);
    glfwSwapInterval(0);
    description_ = "window, " + render::load_gl(&glfwGetProcAddress);
#else
    (void)width;
    (void)height;
    throw Error("internal: windowed recording without GLFW");
#endif
  }
  const std::string& description() const { return description_; }
  /// Shows the frame in the window, if there is one.
  void present(const ViewPass& pass) {
#ifdef STENCILSCOPE_HAVE_GLFW
    if (!window_) return;
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_->get(), &w, &h);
    pass.target().blit_to_default(w, h);
    glfwSwapBuffers(window_->get());
    glfwPollEvents();
#else
    (void)pass;
#endif
  }

 private:
  std::unique_ptr<render::HeadlessContext> egl_;
  std::unique_ptr<GlfwSession> glfw_;
  std::unique_ptr<GlfwWindow> window_;
  std::string description_;
};

/// Writes the scene and the state of `sim` to `path` (a checkpoint; replaced each time).
void save_checkpoint(const std::string& path, LiveSimulation& sim, const SimSettings& settings, const ViewSettings& view) {
  write_checkpoint(path, sim.model().name, sim.config().size, sim.model().dims, scene_text(to_scene_file(settings, view, sim.simulation())),
                   sim.copy_state(), sim.simulation().time());
  std::fprintf(stderr, "stencilscope: record: checkpoint %s at step %ld\n", path.c_str(), sim.status().steps_done);
}

/// `record --measure`: the window's frame loop without a window or files. Steps per
/// frame adapt to the frame budget and batches are never waited for, as in the
/// window (on the GPU the next batch is queued before the previous one is shown); each
/// frame ends with glFinish, then waits for the next refresh of a display of
/// `display_hz` (as the window's vsync does; 0: no wait, as with vsync off). Prints the
/// frame rate and the steps per second over the measured frames, to compare with `bench`.
int measure_frames(const RecordOptions& o, RecordContext& context, SceneOptions scene,
                   std::optional<render::UiRenderer>& ui) {
  SimSettings& settings = scene.sim;
  settings.adaptive_steps = true;
  LiveSimulation sim(settings, scene.factory);
  if (scene.resume) sim.load_state(*scene.resume);  // a checkpoint: its state, bit for bit
  if (scene.scene_file) apply_scene_sources(*scene.scene_file, sim.simulation_for_setup());
  apply_source_args(scene.sources, sim.simulation_for_setup());  // bad ones end the command in one line
  ViewPass pass;
  if (!pass.error().empty()) throw Error(pass.error());
  RangeFollower range;
  RecordingStatus rec_status{false, "", 0, {}};
  bool screenshot_ui = false;
  using Clock = std::chrono::steady_clock;
  std::vector<double> frame_ms;
  // Warm-up: 30 frames and half a second, so that the adaptive batches have grown to the budget.
  int warmup = -1;
  const auto t_start = Clock::now();
  auto t_prev = t_start;
  auto t_first = t_prev;
  auto next_refresh = t_prev;
  // The next refresh of a display of display_hz (as vsync waits); a late frame waits for none.
  const auto wait_for_refresh = [&] {
    if (o.display_hz <= 0) return;
    next_refresh += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / o.display_hz));
    if (next_refresh > Clock::now()) std::this_thread::sleep_until(next_refresh);
    else next_refresh = Clock::now();
  };
  // The frame's length, once past the warm-up.
  const auto end_frame = [&] {
    const auto t = Clock::now();
    if (warmup >= 0) frame_ms.push_back(std::chrono::duration<double, std::milli>(t - t_prev).count());
    t_prev = t;
  };
  long steps_first = 0;
  double t_s_first = 0;  // on the simulation's clock (PerfSample::t_s)
  // STENCILSCOPE_INTEROP_PROBE=gl-clear-only with --no-draw: each frame clears a small
  // target and waits for GL (what handing the GPU to GL costs, without the views' drawing).
  const bool clear_only = render::interop_probe("gl-clear-only");
  std::optional<render::RenderTarget> clear_target;
  if (clear_only) clear_target.emplace(64, 64);
  // STENCILSCOPE_INTEROP_PROBE=gl-on-idle: each frame first waits for every queued batch,
  // so that GL takes an idle GPU (what handing over a busy one costs, against an idle one).
  const bool gl_on_idle = render::interop_probe("gl-on-idle");
  // STENCILSCOPE_INTEROP_PROBE=gl-flush: a frame's GL work is flushed, not finished, and
  // the next frame's waits for it (a swap chain one frame deep), instead of glFinish.
  const bool gl_flush = render::interop_probe("gl-flush");
  render::GLFence frame_done;
  const auto end_gl_frame = [&] {
    if (!gl_flush) return render::finish_gl();
    frame_done.set();
    render::flush_gl();
  };
  render::GpuTimer gl_timer;  // the GPU time of the frame's GL work (views and panels)
  std::vector<double> gl_ms;
  for (int k = 0; warmup < 0 || k < warmup + o.frames; ++k) {
    if (warmup < 0 && k >= 30 && std::chrono::duration<double>(Clock::now() - t_start).count() >= 0.5) {
      warmup = k;
      t_first = Clock::now();
      steps_first = sim.status().steps_done;
      t_s_first = sim.status().history.empty() ? 0 : sim.status().history.back().t_s;
    }
    sim.advance(settings, false);
    if (!sim.status().error.empty()) throw Error("stopped at frame " + std::to_string(k) + ": " + sim.status().error);
    scene.view.style.range = range.update(scene.view, sim.field_stats());
    if (o.measure_no_draw) {  // the frame's GL work left out: what remains is the loop and the uploads
      sim.show_due();
      if (clear_only) {  // measuring: a frame of GL work as small as it gets
        frame_done.wait();
        clear_target->bind();
        render::clear_bound_framebuffer();
        end_gl_frame();
      }
      wait_for_refresh();
      end_frame();
      continue;
    }
    // The panels first: the views lie right of the side bar they draw.
    if (gl_on_idle) sim.simulation_for_setup().wait();  // measuring: the GPU idle when GL takes it
    frame_done.wait();
    gl_timer.begin();
    double side_bar_px = 0;
    if (ui) {
      ui->new_frame();
      ImGui::NewFrame();
      side_bar_px = draw_panels(settings, scene.view, scene.brush, screenshot_ui, sim.status(), sim.gpu_available(),
                                rec_status, FrameInfo{frame_ms.empty() ? 16.7 : frame_ms.back(), 0}, range.drawn())
                        .side_bar_width;
    }
    follow_medium_overlay(sim, scene.view);  // a scene's overlay, as the window's panels apply it
    pass.draw(sim, o.width, o.height, scene.view.style, side_bar_px);
    if (ui) {
      ImGui::Render();
      ui->render(ImGui::GetDrawData());
    }
    gl_timer.end();
    context.present(pass);
    sim.show_due();  // as the window: after the frame's drawing is issued
    end_gl_frame();
    if (const auto ms = gl_timer.last_ms(); ms && warmup >= 0) gl_ms.push_back(*ms);
    wait_for_refresh();
    end_frame();
  }
  const SimStatus& st = sim.status();
  double total = 0;
  for (double ms : frame_ms) total += ms;
  std::vector<double> sorted = frame_ms;
  std::sort(sorted.begin(), sorted.end());
  const double p95 = sorted[std::min(sorted.size() - 1, sorted.size() * 95 / 100)];
  const bool volume = model_of(settings).info().dims == 3;
  const std::string grid = volume ? fmt::format("{} {}x{}x{}", settings.model, settings.nx, settings.ny, settings.nz)
                                  : fmt::format("{} {}x{}", settings.model, settings.nx, settings.ny);
  const std::string paced = (o.display_hz > 0 ? fmt::format(", paced at {:g} Hz", o.display_hz) : ", unpaced") +
                            fmt::format(", batches of about {:g} ms", frame_budget_ms(settings, sim.simulation().on_gpu())) +
                            (o.measure_no_draw ? ", no drawing" : "");
  std::printf("measure: %s; %s; %s grid, %dx%d frames%s%s\n", context.description().c_str(), st.backend.c_str(),
              grid.c_str(), o.width, o.height, o.ui ? ", panels on" : "", paced.c_str());
  std::printf("measure: %zu frames: %.1f fps (mean %.2f ms, 95th percentile %.2f ms per frame), %ld steps done\n",
              frame_ms.size(), 1000.0 * frame_ms.size() / total, total / frame_ms.size(), p95, st.steps_done);
  // Steps per second over the measured frames (finished steps: what the views can show),
  // and the share of that time the GPU (or CPU) spent stepping, from the batches' timings.
  const double seconds = std::chrono::duration<double>(Clock::now() - t_first).count();
  const long steps = st.steps_done - steps_first;
  double stepping_ms = 0;
  int batch_steps = 0;
  for (const PerfSample& p : st.history)
    if (p.t_s > t_s_first) {
      stepping_ms += p.ms_per_step * p.steps;
      batch_steps = p.steps;
    }
  std::printf("measure: %.1f steps/s (%ld steps in %.3f s; stepping %.1f%% of the time; last batch %d steps)\n",
              seconds > 0 ? steps / seconds : 0.0, steps, seconds, seconds > 0 ? stepping_ms / (10.0 * seconds) : 0.0,
              batch_steps);
  if (!gl_ms.empty()) {
    double sum = 0;
    for (double ms : gl_ms) sum += ms;
    std::printf("measure: GL GPU time %.3f ms per frame (views%s; mean of %zu)\n", sum / gl_ms.size(),
                o.ui ? " and panels" : "", gl_ms.size());
  }
  if (st.upload_path && st.uploads > 0)
    std::printf("measure: upload path %s, %.3f ms per upload\n", std::string(to_string(*st.upload_path)).c_str(),
                st.upload_ms_total / st.uploads);
  if (!st.interop_failure.empty()) std::printf("measure: not used: %s\n", st.interop_failure.c_str());
  if (o.against_bench) {  // the same configuration and variant, the kernel alone (`bench`'s timing)
    const Model& model = model_of(settings);
    BenchRequest request;
    request.config = sim.config();
    request.steps = 5 * std::max(1, model.info().bench.default_steps);
    request.repeats = 5;
    request.variants = {sim.simulation().variant()};
    const BenchReport report = model.bench(request);
    const auto row = std::find_if(report.rows.begin(), report.rows.end(), [&](const BenchRow& r) {
      return r.variant == request.variants.front() && r.skipped.empty() && r.time_ms > 0;
    });
    if (row == report.rows.end()) throw Error("record --against-bench: bench gave no timing for " + request.variants.front());
    const double bench_sps = row->steps * 1000.0 / row->time_ms;
    std::printf("measure: bench %s %s: %.1f steps/s (%d steps, median of %d); window / bench = %.4g\n",
                settings.model.c_str(), request.variants.front().c_str(), bench_sps, row->steps, request.repeats,
                seconds > 0 ? steps / seconds / bench_sps : 0.0);
  }
  return 0;
}

}  // namespace

int run_record(const RecordOptions& o) {
  if (o.out.empty() && !o.measure) throw Error("record needs --out FILE.mp4 or --out DIR (or --measure)");
  if (o.against_bench && !o.measure) throw Error("record --against-bench goes with --measure");
  if (o.measure_no_draw && !o.measure) throw Error("record --no-draw goes with --measure");
  const bool headless = o.headless || !display_available() || !glfw_built();
  if (!o.headless && headless)
    std::fprintf(stderr, "stencilscope: record: %s: rendering headless\n",
                 glfw_built() ? "no display" : "this build has no GLFW");
  RecordContext context(headless, o.width, o.height);

  SceneOptions scene = o.scene;
  SimSettings& settings = scene.sim;
  settings.adaptive_steps = false;  // reproducible: a fixed number of steps per frame
  ImGuiSession imgui;
  std::optional<render::UiRenderer> ui;
  if (o.ui) {
    ui.emplace();
    ImGui::GetIO().DisplaySize = ImVec2(static_cast<float>(o.width), static_cast<float>(o.height));
    ImGui::GetIO().DeltaTime = 1.0f / static_cast<float>(o.fps);
  }
  if (o.measure) return measure_frames(o, context, scene, ui);
  LiveSimulation sim(settings, scene.factory);
  if (scene.resume) sim.load_state(*scene.resume);  // a checkpoint: its state, bit for bit
  if (scene.scene_file) apply_scene_sources(*scene.scene_file, sim.simulation_for_setup());
  apply_source_args(scene.sources, sim.simulation_for_setup());  // bad ones end the command in one line
  ViewPass pass;
  if (!pass.error().empty()) throw Error(pass.error());
  RangeFollower range;
  FrameRecorder recorder(o.out, o.width, o.height, o.fps);
  std::fprintf(stderr, "stencilscope: record: %s; %s; %d frames of %dx%d, %d steps each -> %s\n",
               context.description().c_str(), sim.status().backend.c_str(), o.frames, o.width, o.height,
               settings.steps_per_frame, recorder.description().c_str());

  bool screenshot_ui = o.ui;
  RecordingStatus rec_status{true, recorder.description(), 0, {}};
  long next_checkpoint = sim.status().steps_done + o.checkpoint_every;
  // Frame 0 is the initial field; frame k shows k batches of steps_per_frame steps.
  // With --ui one extra frame comes first and is dropped: ImGui lays windows out on
  // their first frame and draws them from the second.
  for (int k = o.ui ? -1 : 0; k < o.frames; ++k) {
    SimSettings step = settings;
    step.paused = k <= 0;
    sim.advance(step, true);
    if (!sim.status().error.empty()) throw Error("recording stopped at frame " + std::to_string(k) + ": " + sim.status().error);
    if (o.ui) sim.request_validation();
    scene.view.style.range = range.update(scene.view, sim.field_stats());
    // The panels first: the views lie right of the side bar they draw.
    double side_bar_px = 0;
    if (ui) {
      ui->new_frame();
      ImGui::NewFrame();
      rec_status.frames = recorder.frames();
      side_bar_px = draw_panels(settings, scene.view, scene.brush, screenshot_ui, sim.status(), sim.gpu_available(),
                                rec_status, FrameInfo{1000.0 / o.fps, 0}, range.drawn())
                        .side_bar_width;
    }
    follow_medium_overlay(sim, scene.view);  // a scene's overlay, as the window's panels apply it
    pass.draw(sim, o.width, o.height, scene.view.style, side_bar_px);
    if (ui) {
      ImGui::Render();
      ui->render(ImGui::GetDrawData());
    }
    if (k < 0) continue;
    recorder.add(pass.read());
    context.present(pass);
    if (!o.checkpoint.empty() && o.checkpoint_every > 0 && sim.status().steps_done >= next_checkpoint) {
      save_checkpoint(o.checkpoint, sim, settings, scene.view);
      next_checkpoint = sim.status().steps_done + o.checkpoint_every;
    }
  }
  recorder.finish();
  if (!o.checkpoint.empty()) save_checkpoint(o.checkpoint, sim, settings, scene.view);
  if (!o.probes_csv.empty()) {
    sim.sample_probes(false);  // the last frame's step too
    std::ofstream f(o.probes_csv);
    f << sim.probes_csv();
    if (!f.flush()) throw Error("cannot write '" + o.probes_csv + "'");
    std::fprintf(stderr, "stencilscope: record: probes %s (%zu samples)\n", o.probes_csv.c_str(),
                 sim.status().probes.time.size());
  }
  if (!scene.sources.seismogram.empty()) write_seismogram_files(scene.sources.seismogram, sim.simulation_for_setup());
  const SimStatus& st = sim.status();
  std::fprintf(stderr, "stencilscope: record: wrote %d frames (step %ld): %s\n", recorder.frames(), st.steps_done,
               recorder.description().c_str());
  if (st.upload_path && st.uploads > 0)
    std::fprintf(stderr, "stencilscope: record: upload path %s, %.3f ms per upload (mean of %ld, GPU work included)\n",
                 std::string(to_string(*st.upload_path)).c_str(), st.upload_ms_total / st.uploads, st.uploads);
  if (!st.interop_failure.empty())
    std::fprintf(stderr, "stencilscope: record: not used: %s\n", st.interop_failure.c_str());
  return 0;
}

}  // namespace ss::app
