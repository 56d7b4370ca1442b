// Command line of the window and of `record`.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "gui.hpp"
#include "checkpoint.hpp"
#include "param_options.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::app {

namespace {

/// Scene options as typed; turned into SceneOptions (with validation) when the command runs.
struct SceneArgs {
  std::string scene;  ///< a scene file (TOML); the flags given override its values
  std::string resume;  ///< a checkpoint (HDF5): its scene and state
  std::string model = default_model();
  std::string size;  ///< empty: the model's default scene size
  int order = 0;     ///< 0: the model's default order
  std::string variant = "auto";
  std::string device = "auto";
  std::string transport;  ///< --transport: GPU halos under mpirun
  ParamArgs params;
  SourceArgs sources;  ///< --point-source, --receivers, --seismogram
  std::string colormap = "viridis";
  std::string range = "auto";
  std::string sampling = "nearest";
  int steps_per_frame = 0;
  std::string upload = "auto";
  std::array<int, 3> slice{-1, -1, -1};  ///< 3D models: z of XY, y of XZ, x of YZ; -1 the middle
  int draw_every = 1;               ///< --draw-every K: max speed
  double frame_budget_ms = 0;       ///< --frame-budget MS: adaptive batches' length (0: automatic)
  std::vector<std::string> ab;      ///< --ab KEY=VALUE: what run B changes
  std::vector<std::string> probes;  ///< --probe X,Y[,Z]
  std::map<std::string, const CLI::Option*> options;  ///< "--model" -> its option (to ask whether it was given)

  /// True when `flag` was given on the command line.
  bool given(const std::string& flag) const {
    const auto it = options.find(flag);
    return it != options.end() && it->second->count() > 0;
  }
};

/// "heat2d 1024x1024, heat3d 128x128x128, ...": each model's default scene size.
std::string default_sizes() {
  std::string out;
  for (const Model* m : models()) {
    const ModelInfo& i = m->info();
    out += (out.empty() ? "" : ", ") + i.name + " " + size_text(i.default_size, i.dims);
  }
  return out;
}

/// "heat2d: global, block, ...; heat3d: ...": the live variants of each model.
std::string variant_help() {
  std::string out;
  for (const Model* m : models()) {
    std::string names;
    for (const VariantSpec& v : m->info().variants)
      if (v.live) names += (names.empty() ? "" : ", ") + v.name;
    out += (out.empty() ? "" : "; ") + m->info().name + ": " + names;
  }
  return out + "; or auto (the fastest for the device)";
}

/// Adds the scene options to `cmd`; `scene_names` names the scene file's option
/// ("--scene", or "scene,--scene" to take it as a positional argument too).
void add_scene_options(CLI::App* cmd, SceneArgs& a, int default_steps, const std::string& scene_names) {
  a.steps_per_frame = default_steps;
  std::string models_help;
  for (const Model* m : models()) models_help += (models_help.empty() ? "" : "; ") + m->info().name + ": " + m->info().description;
  auto& o = a.options;
  o["--scene"] = cmd->add_option(scene_names, a.scene,
                                 "A scene file (TOML, as the window's Save scene writes); the options given override it");
  o["--resume"] = cmd->add_option("--resume", a.resume,
                                  "Start from a checkpoint (HDF5, from export --checkpoint or the window's Save "
                                  "checkpoint): its scene and its state, continued bit for bit");
  o["--model"] = cmd->add_option("--model", a.model, models_help)->capture_default_str();
  o["--size"] = cmd->add_option("--size", a.size,
                                "Interior grid NXxNY (3D models: NXxNYxNZ), or N for a square (cube); default " +
                                    default_sizes());
  o["--order"] = cmd->add_option("--order", a.order, "Stencil order (2, 4, 6 or 8; default: the model's)");
  o["--variant"] = cmd->add_option("--variant", a.variant, variant_help())->capture_default_str();
  cmd->add_option("--device", a.device, "auto, gpu or cpu")->capture_default_str();
  cmd->add_option("--transport", a.transport,
                  "Under mpirun with --device gpu: how halos travel between the ranks' GPUs, as bench's --transport "
                  "(staged, nccl or peer; default: peer when every rank is on one node whose GPUs reach each other, "
                  "else nccl where built and each rank of a node has a GPU of its own, else staged)");
  add_param_options(cmd, a.params);
  add_source_options(cmd, a.sources);
  o["--colormap"] = cmd->add_option("--colormap", a.colormap, "viridis, inferno, magma, blue-red or grey")->capture_default_str();
  o["--range"] = cmd->add_option("--range", a.range, "auto, expanding, or LO:HI (fixed)")->capture_default_str();
  o["--sampling"] = cmd->add_option("--sampling", a.sampling, "nearest or linear")->capture_default_str();
  cmd->add_option("--upload", a.upload, "GPU field to texture: auto, interop (required) or host-copy")
      ->capture_default_str();
  o["--slice-z"] = cmd->add_option("--slice-z", a.slice[0], "3D models: z of the XY slice (default: the middle)");
  o["--slice-y"] = cmd->add_option("--slice-y", a.slice[1], "3D models: y of the XZ slice (default: the middle)");
  o["--slice-x"] = cmd->add_option("--slice-x", a.slice[2], "3D models: x of the YZ slice (default: the middle)");
  o["--steps-per-frame"] = cmd->add_option("--steps-per-frame", a.steps_per_frame, "Steps per frame; 0 adapts to a frame budget")
      ->capture_default_str();
  cmd->add_option("--ab", a.ab,
                  "A/B: run B beside the scene from the same state, changing KEY=VALUE (order=2, variant=cpu, or a "
                  "parameter: alpha=0.1); repeatable; the views show A, B and B - A");
  cmd->add_option("--draw-every", a.draw_every,
                  "Max speed: refresh the views after every K-th batch only (1: each; recordings refresh each frame)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--frame-budget", a.frame_budget_ms,
                  fmt::format("Adaptive steps: the stepping time in ms each batch aims at, 1 to 50 (the panel's budget); "
                              "0: {:g} on the GPU (a batch a frame at 60 Hz), {:g} on the CPU",
                              kGpuFrameBudgetMs, kCpuFrameBudgetMs))
      ->capture_default_str();
  cmd->add_option("--probe", a.probes, "A probe at cell X,Y (3D: X,Y,Z): its value over time in the Plots; repeatable");
}

/// "X,Y" or "X,Y,Z" as a cell inside `s`'s grid; throws ss::Error naming the text.
std::array<int, 3> parse_probe(const std::string& text, const SimSettings& s) {
  const bool flat = model_of(s).info().dims == 2;
  static const std::regex pattern(R"(^\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern) || (flat && m[3].matched) || (!flat && !m[3].matched))
    throw Error(fmt::format("malformed --probe '{}' (expected {})", text, flat ? "X,Y" : "X,Y,Z"));
  std::array<int, 3> c{};
  const std::array<int, 3> n{s.nx, s.ny, flat ? 1 : s.nz};
  for (int k = 0; k < 3; ++k) {
    c[k] = k == 2 && flat ? 0 : std::stoi(m[static_cast<std::size_t>(k + 1)]);
    if (c[k] >= n[k])
      throw Error(fmt::format("--probe {} is outside the {} grid", text, flat ? fmt::format("{} x {}", n[0], n[1])
                                                                               : fmt::format("{} x {} x {}", n[0], n[1], n[2])));
  }
  return c;
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
  // A scene file first; the options given on the command line then override its values.
  // Its model's size, order, variant, parameters and slices apply while the model is its.
  std::optional<SceneFile> file;
  if (!a.scene.empty() && !a.resume.empty()) throw Error("give --scene or --resume, not both (a checkpoint holds its scene)");
  if (!a.scene.empty()) file = read_scene(a.scene);
  if (!a.resume.empty()) {
    for (const char* fixed : {"--model", "--size"})
      if (a.given(fixed)) throw Error(fmt::format("--resume runs the checkpoint's model and grid: {} cannot change them", fixed));
    for (const auto& [name, option] : a.params.options)
      if (option->count() > 0) throw Error("--resume runs the checkpoint's parameters: " + flag_of(name) + " cannot change them");
    if (!a.params.assignments.empty()) throw Error("--resume runs the checkpoint's parameters: --param cannot change them");
    Checkpoint c = read_checkpoint(a.resume);
    file = parse_scene(c.scene, a.resume + " (its scene)");
    o.resume = std::move(c.state);
    o.resume->time = c.time;  // a model whose dt changes goes on from the checkpoint's time
  }
  const Model& model = find_model(file && !a.given("--model") ? file->model : a.model);
  const ModelInfo& info = model.info();
  const bool from_file = file && file->model == info.name;
  if (file) {
    SimSettings file_sim;
    apply_scene_file(*file, file_sim, o.view);
    if (from_file) {
      s = file_sim;
      o.scene_file = *file;
    }
  }
  s.model = info.name;
  if (a.given("--size") || !from_file) {
    const auto n = a.size.empty() ? info.default_size : parse_grid_size(a.size, info, info.default_size);
    s.nx = n[0];
    s.ny = n[1];
    s.nz = n[2];
  }
  if (info.dims == 3) {
    static constexpr const char* kNames[] = {"--slice-z", "--slice-y", "--slice-x"};
    const int depth[3] = {s.nz, s.ny, s.nx};
    for (int k = 0; k < 3; ++k) {
      if (from_file && !a.given(kNames[k])) {
        s.slice[k] = std::min(s.slice[k], depth[k] - 1);  // a --size override may have shrunk the grid
        continue;
      }
      if (a.slice[k] < -1 || a.slice[k] >= depth[k])
        throw Error(fmt::format("{} {} is outside the grid (0..{})", kNames[k], a.slice[k], depth[k] - 1));
      s.slice[k] = a.slice[k];
    }
  }
  if (a.given("--order") || !from_file) s.order = a.order == 0 ? info.default_order : a.order;
  if (!from_file) s.params.clear();
  for (auto& [name, value] : parse_params(a.params, model, false)) s.params[name] = value;
  if (a.steps_per_frame < 0) throw Error(fmt::format("--steps-per-frame must be 0 or more (got {})", a.steps_per_frame));
  if (a.given("--steps-per-frame") || !file) {
    s.adaptive_steps = a.steps_per_frame == 0;
    if (a.steps_per_frame > 0) s.steps_per_frame = a.steps_per_frame;
  }
  if (a.device != "auto" && a.device != "gpu" && a.device != "cpu")
    throw Error("unknown --device '" + a.device + "' (choose auto, gpu or cpu)");
  o.device = a.device;
  o.transport = a.transport;
  if (a.upload == "auto") s.upload = UploadChoice::automatic;
  else if (a.upload == "interop") s.upload = UploadChoice::interop;
  else if (a.upload == "host-copy") s.upload = UploadChoice::host_copy;
  else throw Error("unknown --upload '" + a.upload + "' (choose auto, interop or host-copy)");
  // A bad STENCILSCOPE_INTEROP fails here, before a window opens.
  if (render::interop_override() == render::InteropPath::host && s.upload == UploadChoice::interop)
    throw Error("--upload interop, but STENCILSCOPE_INTEROP=host forces the host copy");
  if (a.given("--variant") || !from_file) {
    o.variant_given = a.variant != "auto";
    if (o.variant_given) {
      const VariantSpec* v = info.variant(a.variant);
      if (!v) throw Error(fmt::format("unknown variant '{}' (choose {})", a.variant, info.variant_list()));
      check_live_variant(info, v->name);
      s.variant = v->name;
    }
  } else {
    // The file's variant, unless --device asks for the other kind of device: then that
    // device's fastest (the command line overrides the file).
    const VariantSpec* v = info.variant(s.variant);
    o.variant_given = v && (a.device == "auto" || (a.device == "gpu") == v->gpu);
  }
  if (!file || a.given("--colormap")) o.view.style.colormap = render::parse_colormap(a.colormap);
  if (!file || a.given("--sampling")) o.view.style.sampling = render::parse_sampling(a.sampling);
  if (!file || a.given("--range")) parse_range(a.range, o.view);
  s.params = to_model_config(s).params;  // the same checks the simulation makes, before a window opens
  s.draw_every = a.draw_every;
  if (a.frame_budget_ms != 0 && !(a.frame_budget_ms >= 1 && a.frame_budget_ms <= 50))
    throw Error(fmt::format("--frame-budget must be 0 (automatic) or 1 to 50 ms (got {:g})", a.frame_budget_ms));
  s.frame_budget_ms = a.frame_budget_ms;
  for (const std::string& t : a.ab) parse_ab_assignment(t, model, s.ab);
  for (const std::string& t : a.probes) s.probes.push_back(parse_probe(t, s));
  resolve_device(o);
  o.sources = a.sources;
  parse_sources(a.sources);  // malformed text fails before a window opens
  parse_receivers(a.sources);
  return o;
}

}  // namespace

void resolve_device(SceneOptions& scene) {
  std::string why;
  const bool gpu = scene.device != "cpu" && cuda_available(&why);
  if (scene.device == "gpu" && !gpu) throw Error("--device gpu: no usable CUDA device (" + why + ")");
  if (scene.variant_given) {
    if (scene.device == "cpu" && runs_on_gpu(scene.sim))
      throw Error(fmt::format("variant {} runs on the GPU, but --device cpu was asked", scene.sim.variant));
    if (scene.device == "gpu" && !runs_on_gpu(scene.sim))
      throw Error(fmt::format("variant {} runs on the CPU, but --device gpu was asked", scene.sim.variant));
    // A GPU variant without a device: LiveSimulation falls back to the CPU and says so.
  } else {
    use_fastest_variant(scene.sim, gpu);
  }
  if (scene.sim.upload == UploadChoice::interop && !(gpu && runs_on_gpu(scene.sim)))
    throw Error("--upload interop needs the GPU backend" + (gpu ? std::string() : " (" + why + ")"));
}

namespace {
/// Under mpirun the boxes step on the CPU unless --device gpu asks for GPU boxes: `--device
/// auto` means the CPU there; `--device gpu` without --variant steps the variant the model's
/// GPU boxes step (a model without them is refused by the factory, in one line).
void use_factory(SceneOptions& o, const SimulationFactory& factory) {
  o.factory = factory;
  if (!factory) {
    if (!o.transport.empty())
      throw Error("--transport is for GPU halos between MPI ranks (mpirun -np N stencilscope ... --device gpu)");
    return;
  }
  o.factory.transport = o.transport;
  if (o.device == "gpu" && !o.variant_given && factory.default_variant)
    o.sim.variant = factory.default_variant(model_of(o.sim), to_model_config(o.sim), Backend::gpu);
  if (o.device == "auto" && runs_on_gpu(o.sim)) {
    if (o.variant_given)
      throw Error(fmt::format("variant {} runs on the GPU; {}: leave out --variant or give a CPU one", o.sim.variant,
                              factory.note));
    use_fastest_variant(o.sim, false);
  }
}
}  // namespace

GuiCommands add_gui_commands(CLI::App& app, SimulationFactory factory) {
  auto window_args = std::make_shared<SceneArgs>();
  auto window = std::make_shared<WindowOptions>();
  add_scene_options(&app, *window_args, 0, "scene,--scene");
  app.add_option("--frames", window->frames, "Run N frames, save --screenshot, exit")->check(CLI::NonNegativeNumber);
  app.add_option("--screenshot", window->screenshot, "PNG written after --frames frames");
  app.add_flag("--screenshot-ui", window->screenshot_ui, "The screenshot includes the panels");
  app.add_option("--width", window->width, "Window width")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--height", window->height, "Window height")->capture_default_str()->check(CLI::PositiveNumber);

  auto record_args = std::make_shared<SceneArgs>();
  auto record = std::make_shared<RecordOptions>();
  CLI::App* rec = app.add_subcommand("record", "Render frames to an MP4 (ffmpeg) or a PNG sequence");
  add_scene_options(rec, *record_args, 10, "--scene");
  rec->add_option("--frames", record->frames, "Frames to record")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_option("--out", record->out, "FILE.mp4 (or .mkv/.mov/.webm), or a directory for PNGs");
  rec->add_option("--checkpoint", record->checkpoint,
                  "Write a checkpoint (HDF5: the scene and the state) to FILE at the end, and every --checkpoint-every "
                  "steps; --resume FILE goes on from it");
  rec->add_option("--probes-csv", record->probes_csv,
                  "With --probe: write each probe's value at every frame's step to this CSV at the end");
  rec->add_option("--checkpoint-every", record->checkpoint_every, "Steps between checkpoints (0: only at the end)")
      ->check(CLI::NonNegativeNumber);
  rec->add_flag("--measure", record->measure,
                "Write nothing: run the window's frame loop (adaptive steps) and report frames and steps per second");
  rec->add_flag("--against-bench", record->against_bench,
                "With --measure: then time the same configuration and variant with `bench` (the kernel alone) and "
                "print the window's steps per second over bench's");
  rec->add_flag("--no-draw", record->measure_no_draw,
                "With --measure: skip drawing the frame (views, panels, glFinish); the views' uploads still run "
                "(add --draw-every with a large K to skip those too): what the frame's GL work costs the steps");
  rec->add_option("--display-hz", record->display_hz,
                  "With --measure: pace the frames as the window's vsync does on a display of this refresh rate "
                  "(0: as fast as the loop goes, as with vsync off)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  rec->add_option("--width", record->width, "Frame width in pixels")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_option("--height", record->height, "Frame height in pixels")->capture_default_str()->check(CLI::PositiveNumber);
  rec->add_flag("--ui", record->ui, "Draw the panels into the frames");
  rec->add_flag("--headless", record->headless, "Own EGL context: no window, no X (automatic without a display)");
  rec->add_option("--fps", record->fps, "Frame rate of the video")->capture_default_str()->check(CLI::PositiveNumber);

  GuiCommands commands;
  commands.window = [window, window_args, factory] {
    WindowOptions o = *window;
    o.scene = to_scene(*window_args);
    use_factory(o.scene, factory);
    o.scene_path = window_args->scene;
    if (o.frames > 0 && o.screenshot.empty()) throw Error("--frames needs --screenshot FILE (the picture it saves)");
    if (!o.screenshot.empty() && o.frames == 0) throw Error("--screenshot needs --frames N (when to take it)");
    return run_window(o);
  };
  commands.record = [record, record_args, factory] {
    RecordOptions o = *record;
    o.scene = to_scene(*record_args);
    use_factory(o.scene, factory);
    if (o.scene.sim.adaptive_steps) {  // recordings advance a fixed number of steps per frame
      o.scene.sim.adaptive_steps = false;
      o.scene.sim.steps_per_frame = 10;
    }
    return run_record(o);
  };
  return commands;
}

}  // namespace ss::app

