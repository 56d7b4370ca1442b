#include "settings.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ss::app {

const Model& model_of(const SimSettings& s) { return find_model(s.model); }

const VariantSpec* variant_of(const SimSettings& s) { return model_of(s).info().variant(s.variant); }

bool runs_on_gpu(const SimSettings& s) {
  const VariantSpec* v = variant_of(s);
  return v && v->gpu;
}

ModelConfig to_model_config(const SimSettings& s) {
  return make_config(model_of(s), {s.nx, s.ny, s.nz}, s.order, s.params);
}

void use_fastest_variant(SimSettings& s, bool gpu) {
  const ModelInfo& info = model_of(s).info();
  s.variant = gpu && !info.fastest_gpu.empty() ? info.fastest_gpu : info.fastest_cpu;
}

void switch_model(SimSettings& s, const Model& model, bool gpu) {
  const ModelInfo& info = model.info();
  s.model = info.name;
  s.nx = info.default_size[0];
  s.ny = info.default_size[1];
  s.nz = info.default_size[2];
  // What the new model shares with the old one carries over: the order, and parameters
  // of the same name whose value it accepts (heat2d <-> heat3d keep their boundary).
  if (std::find(info.orders.begin(), info.orders.end(), s.order) == info.orders.end()) s.order = info.default_order;
  ParamValues kept;
  for (const auto& [name, value] : s.params) {
    const ParamSpec* p = info.param(name);
    if (!p) continue;
    try {
      check_param(*p, value);
      kept[name] = value;
    } catch (const Error&) {
    }
  }
  s.params = std::move(kept);
  s.slice = {-1, -1, -1};
  s.quantity.clear();
  use_fastest_variant(s, gpu);
}

std::string size_text(const SimSettings& s) {
  if (model_of(s).info().dims == 2) return fmt::format("{} x {}", s.nx, s.ny);
  return fmt::format("{} x {} x {}", s.nx, s.ny, s.nz);
}

SceneFile to_scene_file(const SimSettings& s, const ViewSettings& v) {
  SceneFile f;
  f.model = s.model;
  f.size = std::array<int, 3>{s.nx, s.ny, model_of(s).info().dims == 2 ? 1 : s.nz};
  f.order = s.order;
  f.variant = s.variant;
  f.params = to_model_config(s).params;  // every parameter, so the file is complete
  f.colormap = std::string(render::to_string(v.style.colormap));
  f.sampling = std::string(render::to_string(v.style.sampling));
  f.colorbar = v.style.colorbar;
  if (v.range_mode == render::RangeMode::fixed) f.range = {"fixed", v.fixed_range.lo, v.fixed_range.hi};
  else f.range.mode = v.range_mode == render::RangeMode::expanding ? "expanding" : "auto";
  f.quantity = s.quantity;
  if (model_of(s).info().dims == 3) f.slices = s.slice;
  f.steps_per_frame = s.adaptive_steps ? 0 : s.steps_per_frame;
  return f;
}

void apply_scene_file(const SceneFile& f, SimSettings& s, ViewSettings& v) {
  ViewSettings view = v;
  try {
    view.style.colormap = render::parse_colormap(f.colormap);
  } catch (const Error& e) {
    throw Error(f.where("view.colormap") + ": view.colormap: " + e.what());
  }
  try {
    view.style.sampling = render::parse_sampling(f.sampling);
  } catch (const Error& e) {
    throw Error(f.where("view.sampling") + ": view.sampling: " + e.what());
  }
  view.style.colorbar = f.colorbar;
  if (f.range.mode == "fixed") {
    view.range_mode = render::RangeMode::fixed;
    view.fixed_range = {f.range.lo, f.range.hi};
  } else {
    view.range_mode = f.range.mode == "expanding" ? render::RangeMode::expanding : render::RangeMode::automatic;
  }
  const ModelInfo& info = find_model(f.model).info();
  SimSettings sim = s;
  sim.model = info.name;
  const std::array<int, 3> n = f.size.value_or(info.default_size);
  sim.nx = n[0];
  sim.ny = n[1];
  sim.nz = info.dims == 2 ? 1 : n[2];
  sim.order = f.order.value_or(info.default_order);
  sim.variant = f.variant;
  sim.params = f.params;
  sim.slice = info.dims == 3 ? f.slices : std::array<int, 3>{-1, -1, -1};
  sim.quantity = f.quantity;
  sim.adaptive_steps = f.steps_per_frame == 0;
  if (f.steps_per_frame > 0) sim.steps_per_frame = f.steps_per_frame;
  s = std::move(sim);
  v = std::move(view);
}

void write_scene(const std::string& path, const SimSettings& s, const ViewSettings& v) {
  write_scene(path, to_scene_file(s, v));
}

}  // namespace ss::app
