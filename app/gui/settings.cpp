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
  s.probes.clear();
  s.ab = AbSettings{s.ab.enabled, 0, {}, {}};  // what B changed belonged to the old model
  use_fastest_variant(s, gpu);
}

void parse_ab_assignment(std::string_view text, const Model& model, AbSettings& ab) {
  const ModelInfo& info = model.info();
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw Error(fmt::format("--ab '{}' is not KEY=VALUE (order=2, variant=cpu or a parameter of {})", text, info.name));
  const std::string key(text.substr(0, eq)), value(text.substr(eq + 1));
  if (key == "order") {
    int order = 0;
    try {
      std::size_t used = 0;
      order = std::stoi(value, &used);
      if (used != value.size()) order = 0;
    } catch (const std::exception&) {
    }
    if (std::find(info.orders.begin(), info.orders.end(), order) == info.orders.end()) {
      std::string orders;
      for (int o : info.orders) orders += (orders.empty() ? "" : ", ") + std::to_string(o);
      throw Error(fmt::format("--ab order={}: {} takes the orders {}", value, info.name, orders));
    }
    ab.order = order;
  } else if (key == "variant") {
    const VariantSpec* v = info.variant(value);
    if (!v || !v->live)
      throw Error(fmt::format("--ab variant={}: not a live variant of {} (choose {})", value, info.name, info.variant_list()));
    ab.variant = v->name;
  } else if (const ParamSpec* p = info.param(key)) {
    ab.params[key] = parse_param(*p, value);
  } else {
    throw Error(fmt::format("--ab {}: {} has no parameter '{}' (B may change order, variant or a parameter)", text,
                            info.name, key));
  }
  ab.enabled = true;
}

std::string ab_text(const AbSettings& ab) {
  std::string out;
  auto add = [&out](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
  if (ab.order > 0) add(fmt::format("order {}", ab.order));
  if (!ab.variant.empty()) add("variant " + ab.variant);
  for (const auto& [name, value] : ab.params) add(name + " " + ss::to_string(value));
  return out.empty() ? "nothing" : out;
}

std::string size_text(const SimSettings& s) {
  if (model_of(s).info().dims == 2) return fmt::format("{} x {}", s.nx, s.ny);
  return fmt::format("{} x {} x {}", s.nx, s.ny, s.nz);
}

static_assert(kSceneMinZoom == render::kMinZoom && kSceneMaxZoom == render::kMaxZoom,
              "a scene's zoom range is the view's");

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
  f.probes = s.probes;
  f.zoom = v.style.transform.zoom;
  f.pan = {v.style.transform.pan_x, v.style.transform.pan_y};
  f.overlay = v.style.medium_overlay;
  f.overlay_opacity = v.style.medium_opacity;
  f.ab = {s.ab.enabled, s.ab.order, s.ab.variant, s.ab.params};
  return f;
}

SceneFile to_scene_file(const SimSettings& s, const ViewSettings& v, const Simulation& running) {
  SceneFile f = to_scene_file(s, v);
  take_sources(f, running);
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
  view.style.transform = {f.zoom, f.pan[0], f.pan[1]};
  view.style.medium_overlay = f.overlay;
  view.style.medium_opacity = static_cast<float>(f.overlay_opacity);
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
  sim.probes = f.probes;
  sim.ab = {f.ab.enabled, f.ab.order, f.ab.variant, f.ab.params};
  sim.adaptive_steps = f.steps_per_frame == 0;
  if (f.steps_per_frame > 0) sim.steps_per_frame = f.steps_per_frame;
  s = std::move(sim);
  v = std::move(view);
}

void write_scene(const std::string& path, const SimSettings& s, const ViewSettings& v) {
  write_scene(path, to_scene_file(s, v));
}

void write_scene(const std::string& path, const SimSettings& s, const ViewSettings& v, const Simulation& running) {
  write_scene(path, to_scene_file(s, v, running));
}

}  // namespace ss::app
