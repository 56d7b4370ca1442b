// `stencilscope export`: runs a scene for some steps and writes its field or one of its
// views as a NumPy .npy file (numpy.load opens it), and/or a checkpoint (HDF5) from which
// `export --resume` goes on bit for bit. Generic over the model registry.
#include <fmt/format.h>

#include "checkpoint.hpp"
#include "commands.hpp"
#include "scene_file.hpp"
#include "param_options.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"

namespace ss::app {

namespace {

struct ExportArgs {
  std::string model = default_model();
  std::string size;
  int order = 0;
  std::string variant = "auto";
  std::string device = "auto";
  ParamArgs params;
  int steps = 0;
  std::string view = "field";
  std::array<int, 3> slice{-1, -1, -1};
  std::string out;
  std::string checkpoint;  ///< write one here after the steps
  std::string resume;      ///< start from this checkpoint (its scene and state)
  SourceArgs sources;      ///< --point-source, --receivers, --seismogram
};

int run_export(const ExportArgs& a) {
  if (a.out.empty() && a.checkpoint.empty() && a.sources.seismogram.empty())
    throw Error("export needs --out FILE.npy, --checkpoint FILE.h5 or --seismogram BASE");
  if (a.steps < 0) throw Error(fmt::format("--steps must be 0 or more (got {})", a.steps));
  // The scene: from the command line, or from the checkpoint being resumed.
  std::optional<Checkpoint> resumed;
  std::optional<SceneFile> scene;
  if (!a.resume.empty()) {
    resumed = read_checkpoint(a.resume);
    scene = parse_scene(resumed->scene, a.resume + " (its scene)");
  }
  const Model& model = find_model(scene ? scene->model : a.model);
  const ModelInfo& info = model.info();
  const auto size = scene && scene->size ? *scene->size
                    : a.size.empty()     ? info.default_size
                                         : parse_grid_size(a.size, info, info.default_size);
  const int order = scene && scene->order ? *scene->order : a.order == 0 ? info.default_order : a.order;
  const ModelConfig config = make_config(model, size, order, scene ? scene->params : parse_params(a.params, model, false));
  if (a.device != "auto" && a.device != "gpu" && a.device != "cpu")
    throw Error("unknown --device '" + a.device + "' (choose auto, gpu or cpu)");
  std::string why;
  bool gpu = a.device != "cpu" && !info.fastest_gpu.empty() && cuda_available(&why);
  if (a.device == "gpu" && !gpu) throw Error("--device gpu: no usable CUDA device (" + why + ")");
  std::string variant = gpu ? info.fastest_gpu : info.fastest_cpu;
  if (a.variant != "auto") {
    const VariantSpec* v = info.variant(a.variant);
    if (!v) throw Error(fmt::format("unknown variant '{}' (choose {})", a.variant, info.variant_list()));
    gpu = v->gpu;
    variant = v->name;
  }
  std::unique_ptr<Simulation> sim = model.create(config, gpu ? Backend::gpu : Backend::cpu, variant);
  if (resumed) sim->load_state(resumed->state);  // refused, naming the shapes, when it does not fit
  apply_source_args(a.sources, *sim);  // refused in one line: outside the grid, a kind the model lacks
  if (a.steps > 0) sim->start_steps(a.steps);
  sim->wait();
  if (!a.sources.seismogram.empty()) {
    write_seismogram_files(a.sources.seismogram, *sim);
    if (a.out.empty() && a.checkpoint.empty()) return 0;
  }
  if (!a.checkpoint.empty()) {
    SceneFile s;
    s.model = info.name;
    s.size = config.size;
    s.order = sim->config().order;
    s.variant = variant;
    s.params = config.params;
    write_checkpoint(a.checkpoint, info.name, config.size, info.dims, scene_text(s), sim->copy_state(), sim->time());
    fmt::print("wrote {}: a {} checkpoint at step {}, t = {:.6g}\n", a.checkpoint, info.name, sim->steps_done(),
               sim->time());
    if (a.out.empty()) return 0;
  }

  std::vector<float> values;
  std::vector<std::size_t> shape;
  if (a.view == "field") {
    SimState state = sim->copy_state();
    if (state.fields.empty())
      throw Error(fmt::format("{} keeps no field of its own (its views are computed): export a view with --view {}",
                              info.name, info.dims == 2 ? "field" : "xy, xz or yz"));
    values = std::move(state.fields.front());
    if (info.dims == 3) shape.push_back(static_cast<std::size_t>(config.size[2]));
    shape.push_back(static_cast<std::size_t>(config.size[1]));
    shape.push_back(static_cast<std::size_t>(config.size[0]));
  } else {
    static const std::array<std::string, 3> kViews = {"xy", "xz", "yz"};
    const auto it = std::find(kViews.begin(), kViews.end(), a.view);
    if (it == kViews.end() || info.dims != 3)
      throw Error(fmt::format("unknown --view '{}' for {} (choose {})", a.view, info.name,
                              info.dims == 3 ? "field, xy, xz or yz" : "field"));
    const int view = static_cast<int>(it - kViews.begin());
    ViewPlacement where;
    const int depth[3] = {config.size[2], config.size[1], config.size[0]};
    static constexpr const char* kSliceFlags[] = {"--slice-z", "--slice-y", "--slice-x"};
    for (int k = 0; k < 3; ++k) {
      if (a.slice[k] < -1 || a.slice[k] >= depth[k])
        throw Error(fmt::format("{} {} is outside the grid (0..{})", kSliceFlags[k], a.slice[k], depth[k] - 1));
      where.slices[static_cast<std::size_t>(k)] = a.slice[k] < 0 ? depth[k] / 2 : a.slice[k];
    }
    const auto [nu, nv] = sim->view_size(view);
    values.resize(static_cast<std::size_t>(nu) * nv);
    sim->copy_view(view, where, values.data());
    shape = {static_cast<std::size_t>(nv), static_cast<std::size_t>(nu)};
  }
  write_npy(a.out, values.data(), shape);
  std::string dims;
  for (std::size_t n : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(n);
  fmt::print("wrote {}: {} {} ({}), float32, shape ({}), step {}, t = {:.6g}, {} on the {}\n", a.out, info.name,
             a.view, size_text(config.size, info.dims), dims, sim->steps_done(), sim->time(), variant,
             gpu ? "GPU" : "CPU");
  return 0;
}

}  // namespace

std::function<int()> add_export_command(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Run a scene for --steps steps and write its field or a view as .npy");
  cmd->add_option("--model", args->model, "A registered model: " + model_list())->capture_default_str();
  cmd->add_option("--size", args->size, "NXxNY (3D: NXxNYxNZ) or N; default: the model's scene size");
  cmd->add_option("--order", args->order, "Stencil order (default: the model's)");
  cmd->add_option("--variant", args->variant, "A variant of the model, or auto (the fastest on the device)")
      ->capture_default_str();
  cmd->add_option("--device", args->device, "auto, gpu or cpu")->capture_default_str();
  add_param_options(cmd, args->params);
  cmd->add_option("--steps", args->steps, "Steps before the export")->capture_default_str();
  cmd->add_option("--view", args->view,
                  "field (the whole field: (ny, nx) or (nz, ny, nx)), or a 3D slice: xy, xz, yz ((nv, nu))")
      ->capture_default_str();
  cmd->add_option("--slice-z", args->slice[0], "xy: its z (default: the middle)");
  cmd->add_option("--slice-y", args->slice[1], "xz: its y (default: the middle)");
  cmd->add_option("--slice-x", args->slice[2], "yz: its x (default: the middle)");
  cmd->add_option("--out", args->out, "The .npy file to write");
  add_source_options(cmd, args->sources);
  cmd->add_option("--checkpoint", args->checkpoint,
                  "Also (or only) write an HDF5 checkpoint after the steps: the fields, step, time and the scene");
  cmd->add_option("--resume", args->resume,
                  "Start from this checkpoint: its scene and its state (then --steps more steps, bit for bit as one run)");
  return [args] { return run_export(*args); };
}

}  // namespace ss::app
