// `stencilscope export`: runs a scene for some steps and writes its field or one of its
// views as a NumPy .npy file (numpy.load opens it), or the volume as a VTK image (.vti:
// ParaView), and/or a checkpoint (HDF5) from which `export --resume` goes on bit for
// bit. The extension of --out picks the format. Generic over the model registry.
#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "checkpoint.hpp"
#include "commands.hpp"
#include "scene_file.hpp"
#include "param_options.hpp"
#include "sim/core/device.hpp"
#include "sim/core/error.hpp"
#include "sim/core/model.hpp"
#include "sim/core/npy.hpp"
#include "sim/core/vti.hpp"

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
  std::string quantity;  ///< .vti: a view quantity, or all; empty: the stepped fields
  std::array<int, 3> slice{-1, -1, -1};
  std::string out;
  std::string checkpoint;  ///< write one here after the steps
  std::string resume;      ///< start from this checkpoint (its scene and state)
  SourceArgs sources;      ///< --point-source, --receivers, --seismogram
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// The whole grid of view quantity `quantity`, x fastest: the XY view at every z (a 2D
/// model's one view); on the GPU one slice at a time crosses the bus.
std::vector<float> quantity_volume(Simulation& sim, const std::string& quantity) {
  const auto& n = sim.config().size;
  const std::size_t plane = static_cast<std::size_t>(n[0]) * n[1];
  std::vector<float> out(plane * n[2]);
  ViewPlacement where;
  where.quantity = quantity;
  where.slices = {0, n[1] / 2, n[0] / 2};
  for (int z = 0; z < n[2]; ++z) {
    where.slices[0] = z;
    sim.copy_view(0, where, out.data() + plane * z);
  }
  return out;
}

/// export --out F.vti: the stepped fields (state0, state1, ... as a checkpoint holds
/// them), or one view quantity, or every one (--quantity all), as a VTK image.
int write_volume(const ExportArgs& a, Simulation& sim, const ModelConfig& config, const std::string& variant, bool gpu) {
  const ModelInfo& info = sim.info();
  if (a.view != "field") throw Error("a .vti file holds the whole grid: --view is for .npy files");
  const std::vector<std::string>& quantities = info.views.quantities;
  std::vector<std::pair<std::string, std::vector<float>>> data;
  if (a.quantity.empty()) {
    SimState state = sim.copy_state();
    for (std::size_t f = 0; f < state.fields.size(); ++f)
      data.emplace_back(state.fields.size() == 1 && quantities.size() == 1 ? quantities.front() : fmt::format("state{}", f),
                        std::move(state.fields[f]));
  }
  // A model that keeps no field of its own (its views are computed) writes its quantities.
  if (a.quantity == "all" || (a.quantity.empty() && data.empty())) {
    for (const std::string& q : quantities) data.emplace_back(q, quantity_volume(sim, q));
  } else if (!a.quantity.empty()) {
    if (std::find(quantities.begin(), quantities.end(), a.quantity) == quantities.end()) {
      std::string list;
      for (const std::string& q : quantities) list += q + ", ";
      throw Error(fmt::format("{} has no quantity '{}' (choose {}or all)", info.name, a.quantity, list));
    }
    data.emplace_back(a.quantity, quantity_volume(sim, a.quantity));
  }
  const GridGeometry geometry = sim.geometry();
  VtiImage image;
  image.size = config.size;
  image.origin = geometry.origin;
  image.spacing = geometry.spacing;
  image.time = sim.time();
  image.step = sim.steps_done();
  std::vector<VtiArray> arrays;
  std::string names;
  for (const auto& [name, values] : data) {
    arrays.push_back({name, values.data()});
    names += (names.empty() ? "" : ", ") + name;
  }
  write_vti(a.out, image, arrays);
  fmt::print("wrote {}: {} ({}), float32 point data {}, spacing {:.6g}{}, step {}, t = {:.6g}, {} on the {}\n", a.out,
             info.name, size_text(config.size, info.dims), names, geometry.spacing[0],
             geometry.unit.empty() ? "" : " " + geometry.unit, sim.steps_done(), sim.time(), variant, gpu ? "GPU" : "CPU");
  return 0;
}

int run_export(const ExportArgs& a) {
  if (a.out.empty() && a.checkpoint.empty() && a.sources.seismogram.empty())
    throw Error("export needs --out FILE.npy|FILE.vti, --checkpoint FILE.h5 or --seismogram BASE");
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
  if (resumed) {
    resumed->state.time = resumed->time;  // a model whose dt changes goes on from the checkpoint's time
    sim->load_state(resumed->state);     // refused, naming the shapes, when it does not fit
  }
  if (scene) apply_scene_sources(*scene, *sim);   // the checkpoint's sources and receivers
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
    take_sources(s, *sim);  // the sources and receivers it ran with, for --resume
    write_checkpoint(a.checkpoint, info.name, config.size, info.dims, scene_text(s), sim->copy_state(), sim->time());
    fmt::print("wrote {}: a {} checkpoint at step {}, t = {:.6g}\n", a.checkpoint, info.name, sim->steps_done(),
               sim->time());
    if (a.out.empty()) return 0;
  }

  if (ends_with(a.out, ".vti")) return write_volume(a, *sim, config, variant, gpu);
  if (!a.quantity.empty()) throw Error("--quantity is for .vti files (a .npy holds the field or a view)");
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
  CLI::App* cmd = app.add_subcommand("export", "Run a scene for --steps steps and write its field or a view as .npy, or the grid as .vti");
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
  cmd->add_option("--out", args->out,
                  "The file to write: FILE.npy (the field or a view, NumPy) or FILE.vti (the whole grid, VTK "
                  "ImageData for ParaView)");
  cmd->add_option("--quantity", args->quantity,
                  ".vti: a quantity the views show, or all; default: every field the model steps (named state0, "
                  "state1, ... in a checkpoint's order; a single field takes its quantity's name)");
  add_source_options(cmd, args->sources);
  cmd->add_option("--checkpoint", args->checkpoint,
                  "Also (or only) write an HDF5 checkpoint after the steps: the fields, step, time and the scene");
  cmd->add_option("--resume", args->resume,
                  "Start from this checkpoint: its scene and its state (then --steps more steps, bit for bit as one run)");
  return [args] { return run_export(*args); };
}

}  // namespace ss::app
