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

}  // namespace ss::app
