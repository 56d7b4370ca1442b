// Command line of the window and of `record`.
#include <array>
#include <memory>
#include <regex>

#include <fmt/format.h>

#include "gui.hpp"
#include "stencilscope/device.hpp"
#include "stencilscope/error.hpp"

namespace ss::app {

namespace {

/// Scene options as typed; turned into SceneOptions (with validation) when the command runs.
struct SceneArgs {
  std::string model = "heat2d";
  std::string size;  ///< empty: the model's default (1024x1024; heat3d 128x128x128)
  int order = 8;
  std::string variant = "auto";
  std::string device = "auto";
  std::string boundary = "analytic";
  std::string initial = "analytic";
  double alpha = 1.0;
  double dt = 0.0;
  double fixed_value = 0.0;
  unsigned seed = 1;
  std::string colormap = "viridis";
  std::string range = "auto";
  std::string sampling = "nearest";
  int steps_per_frame = 0;
  std::string upload = "auto";
  std::array<int, 3> slice{-1, -1, -1};  ///< heat3d: z of XY, y of XZ, x of YZ; -1 the middle
  std::string axis = "x";                ///< deriv3d: the derivative shown
};

void add_scene_options(CLI::App* cmd, SceneArgs& a, int default_steps) {
  a.steps_per_frame = default_steps;
  cmd->add_option("--model", a.model,
                  "heat2d (the field), heat3d (three slices through the volume) or deriv3d (slices of df/daxis)")
      ->capture_default_str();
  cmd->add_option("--axis", a.axis, "deriv3d: the derivative shown, x, y or z")->capture_default_str();
  cmd->add_option("--size", a.size,
                  "Interior grid NXxNY (3D models: NXxNYxNZ), or N for a square (cube); default 1024x1024, heat3d "
                  "128x128x128, deriv3d 64x64x64");
  cmd->add_option("--order", a.order, "Stencil order: 2, 4, 6 or 8")->capture_default_str();
  cmd->add_option("--variant", a.variant,
                  "heat2d: global, block, shared, stream, cpu; heat3d: global, shared3d, stream25d, cpu; deriv3d: "
                  "global, spencil, lpencil, stream, posts-spencil, posts-lpencil (64^3 and 256^3 only), cpu; or auto "
                  "(the fastest for the device)")
      ->capture_default_str();
  cmd->add_option("--device", a.device, "auto, gpu or cpu")->capture_default_str();
  cmd->add_option("--boundary,--bc", a.boundary, "analytic, periodic, fixed or insulated")->capture_default_str();
  cmd->add_option("--initial,--ic", a.initial, "analytic, hot-disc, hot-spots or checkerboard")->capture_default_str();
  cmd->add_option("--alpha", a.alpha, "Diffusivity")->capture_default_str();
  cmd->add_option("--dt", a.dt, "Time step (default: half the stability limit)");
  cmd->add_option("--fixed-value", a.fixed_value, "Ghost value of the fixed boundary")->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed of the random initial conditions")->capture_default_str();
  cmd->add_option("--colormap", a.colormap, "viridis, inferno, magma, blue-red or grey")->capture_default_str();
  cmd->add_option("--range", a.range, "auto, expanding, or LO:HI (fixed)")->capture_default_str();
  cmd->add_option("--sampling", a.sampling, "nearest or linear")->capture_default_str();
  cmd->add_option("--upload", a.upload, "GPU field to texture: auto, interop (required) or host-copy")
      ->capture_default_str();
  cmd->add_option("--slice-z", a.slice[0], "heat3d: z of the XY slice (default: the middle)");
  cmd->add_option("--slice-y", a.slice[1], "heat3d: y of the XZ slice (default: the middle)");
  cmd->add_option("--slice-x", a.slice[2], "heat3d: x of the YZ slice (default: the middle)");
  cmd->add_option("--steps-per-frame", a.steps_per_frame, "Steps per frame; 0 adapts to a frame budget")
      ->capture_default_str();
}

std::pair<int, int> parse_size(const std::string& s) {
  static const std::regex pattern(R"(^\s*(\d{1,9})\s*(?:[xX]\s*(\d{1,9}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, pattern))
    throw Error("malformed --size '" + s + "' (expected NXxNY such as 1024x1024, or one number for a square)");
  const int nx = std::stoi(m[1]);
  return {nx, m[2].matched ? std::stoi(m[2]) : nx};
}

std::array<int, 3> parse_size3(const std::string& s) {
  static const std::regex pattern(R"(^\s*(\d{1,9})\s*(?:[xX]\s*(\d{1,9})\s*[xX]\s*(\d{1,9}))?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, pattern))
    throw Error("malformed --size '" + s + "' (heat3d: expected NXxNYxNZ such as 128x128x128, or one number for a cube)");
  const int nx = std::stoi(m[1]);
  if (!m[2].matched) return {nx, nx, nx};
  return {nx, std::stoi(m[2]), std::stoi(m[3])};
}

void parse_range(const std::string& s, ViewSettings& v) {
  if (s == "auto") {
    v.range_mode = render::RangeMode::automatic;
    return;
  }
  if (s == "expanding") {
    v.range_mode = render::RangeMode::expanding;
    return;
  }
  static const std::regex pattern(R"(^\s*([-+0-9.eE]+)\s*:\s*([-+0-9.eE]+)\s*$)");
  std::smatch m;
  double lo = 0, hi = 0;
  bool ok = std::regex_match(s, m, pattern);
  if (ok) {
    try {
      lo = std::stod(m[1]);
      hi = std::stod(m[2]);
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || !(lo < hi))
    throw Error("malformed --range '" + s + "' (expected auto, expanding, or LO:HI with LO < HI such as -1.5:1.5)");
  v.range_mode = render::RangeMode::fixed;
  v.fixed_range = {lo, hi};
}

SceneOptions to_scene(const SceneArgs& a) {
  SceneOptions o;
  SimSettings& s = o.sim;
  s.model = parse_model(a.model);
  if (s.model == Model::heat2d) {
    std::tie(s.nx, s.ny) = parse_size(a.size.empty() ? "1024x1024" : a.size);
  } else {
    const auto n = parse_size3(a.size.empty() ? (s.model == Model::heat3d ? "128" : "64") : a.size);
    s.nx = n[0];
    s.ny = n[1];
    s.nz = n[2];
    static constexpr const char* kNames[] = {"--slice-z", "--slice-y", "--slice-x"};
    const int depth[3] = {s.nz, s.ny, s.nx};
    for (int k = 0; k < 3; ++k) {
      if (a.slice[k] < -1 || a.slice[k] >= depth[k])
        throw Error(fmt::format("{} {} is outside the grid (0..{})", kNames[k], a.slice[k], depth[k] - 1));
      s.slice[k] = a.slice[k];
    }
  }
  check_order(a.order);
  s.order = a.order;
  s.boundary = parse_boundary(a.boundary);
  s.initial = parse_initial_condition(a.initial);
  s.alpha = a.alpha;
  s.dt = a.dt;
  s.fixed_value = a.fixed_value;
  s.seed = a.seed;
  if (a.steps_per_frame < 0) throw Error(fmt::format("--steps-per-frame must be 0 or more (got {})", a.steps_per_frame));
  s.adaptive_steps = a.steps_per_frame == 0;
  if (a.steps_per_frame > 0) s.steps_per_frame = a.steps_per_frame;
  if (a.device != "auto" && a.device != "gpu" && a.device != "cpu")
    throw Error("unknown --device '" + a.device + "' (choose auto, gpu or cpu)");
  o.device = a.device;
  if (a.upload == "auto") s.upload = UploadChoice::automatic;
  else if (a.upload == "interop") s.upload = UploadChoice::interop;
  else if (a.upload == "host-copy") s.upload = UploadChoice::host_copy;
  else throw Error("unknown --upload '" + a.upload + "' (choose auto, interop or host-copy)");
  o.variant_given = a.variant != "auto";
  if (o.variant_given && s.model == Model::heat2d) s.variant = parse_heat2d_variant(a.variant);
  if (o.variant_given && s.model == Model::heat3d) s.variant3d = parse_heat3d_variant(a.variant);
  if (o.variant_given && s.model == Model::deriv3d) s.deriv_variant = parse_deriv3d_variant(a.variant);
  s.deriv_axis = parse_axis(a.axis);
  if ((s.model == Model::heat3d && s.variant3d == Heat3DVariant::reference) ||
      (s.model == Model::deriv3d && s.deriv_variant == Deriv3DVariant::reference))
    throw Error("the 3D 'reference' variants recompute from t = 0 in double precision; they are for `bench`, not live stepping");
  o.view.style.colormap = render::parse_colormap(a.colormap);
  o.view.style.sampling = render::parse_sampling(a.sampling);
  parse_range(a.range, o.view);
  // The same checks the simulation makes, before a window opens.
  if (s.model == Model::heat2d) make_heat2d_setup(to_config(s));
  else if (s.model == Model::heat3d) make_heat3d_setup(to_config3d(s));
  else make_deriv3d_setup(to_deriv_config(s));
  resolve_device(o);
  return o;
}

}  // namespace

void resolve_device(SceneOptions& scene) {
  std::string why;
  const bool gpu = scene.device != "cpu" && cuda_available(&why);
  if (scene.device == "gpu" && !gpu) throw Error("--device gpu: no usable CUDA device (" + why + ")");
  const Model model = scene.sim.model;
  const std::string variant_name(model == Model::heat2d   ? to_string(scene.sim.variant)
                                 : model == Model::heat3d ? to_string(scene.sim.variant3d)
                                                          : to_string(scene.sim.deriv_variant));
  if (scene.variant_given) {
    if (scene.device == "cpu" && runs_on_gpu(scene.sim))
      throw Error(fmt::format("variant {} runs on the GPU, but --device cpu was asked", variant_name));
    if (scene.device == "gpu" && !runs_on_gpu(scene.sim))
      throw Error(fmt::format("variant {} runs on the CPU, but --device gpu was asked", variant_name));
    // A GPU variant without a device: LiveSimulation falls back to the CPU and says so.
  } else {  // the fastest of each (bench)
    scene.sim.variant = gpu ? Heat2DVariant::stream : Heat2DVariant::cpu;
    scene.sim.variant3d = gpu ? Heat3DVariant::stream25d : Heat3DVariant::cpu;
    scene.sim.deriv_variant = gpu ? Deriv3DVariant::stream : Deriv3DVariant::cpu;
  }
  if (scene.sim.upload == UploadChoice::interop && !(gpu && runs_on_gpu(scene.sim)))
    throw Error("--upload interop needs the GPU backend" + (gpu ? std::string() : " (" + why + ")"));
}

GuiCommands add_gui_commands(CLI::App& app) {
  auto window_args = std::make_shared<SceneArgs>();
  auto window = std::make_shared<WindowOptions>();
  add_scene_options(&app, *window_args, 0);
  app.add_option("--frames", window->frames, "Run N frames, save --screenshot, exit")->check(CLI::NonNegativeNumber);
  app.add_option("--screenshot", window->screenshot, "PNG written after --frames frames");
  app.add_flag("--screenshot-ui", window->screenshot_ui, "The screenshot includes the panels");
  app.add_option("--width", window->width, "Window width")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--height", window->height, "Window height")->capture_default_str()->check(CLI::PositiveNumber);

  auto record_args = std::make_shared<SceneArgs>();
  auto record = std::make_shared<RecordOptions>();
  CLI::App* rec = app.add_subcommand("record", "Render frames to an MP4 (ffmpeg) or a PNG sequence");
  add_scene_options(rec, *record_args, 10);
  rec->add_option("--frames", record->frames, "Frames to record")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_option("--out", record->out, "FILE.mp4 (or .mkv/.mov/.webm), or a directory for PNGs");
  rec->add_flag("--measure", record->measure,
                "Write nothing: run the window's frame loop (adaptive steps) and report frames per second");
  rec->add_option("--width", record->width, "Frame width in pixels")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_option("--height", record->height, "Frame height in pixels")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_flag("--ui", record->ui, "Draw the panels into the frames");
  rec->add_flag("--headless", record->headless, "Own EGL context: no window, no X (automatic without a display)");
  rec->add_option("--fps", record->fps, "Frame rate of the video")->capture_default_str()->check(CLI::PositiveNumber);

  GuiCommands commands;
  commands.window = [window, window_args] {
    WindowOptions o = *window;
    o.scene = to_scene(*window_args);
    if (o.frames > 0 && o.screenshot.empty()) throw Error("--frames needs --screenshot FILE (the picture it saves)");
    if (!o.screenshot.empty() && o.frames == 0) throw Error("--screenshot needs --frames N (when to take it)");
    return run_window(o);
  };
  commands.record = [record, record_args] {
    RecordOptions o = *record;
    o.scene = to_scene(*record_args);
    if (o.scene.sim.adaptive_steps) {  // recordings advance a fixed number of steps per frame
      o.scene.sim.adaptive_steps = false;
      o.scene.sim.steps_per_frame = 10;
    }
    return run_record(o);
  };
  return commands;
}

}  // namespace ss::app

