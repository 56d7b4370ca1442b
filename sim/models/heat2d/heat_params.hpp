#pragma once
// What heat 2D and heat 3D share in their descriptions: the parameters (boundary,
// initial condition, alpha, dt, fixed value, seed), the presets, and the bandwidth
// accounting of one step (one read and one write of each interior value).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/model.hpp"
#include "sim/models/heat2d/heat2d.hpp"

namespace ss {

/// The heat models' parameters, with their ranges and help.
std::vector<ParamSpec> heat_params();
/// The heat models' presets: the CME 213 case and the other initial conditions.
std::vector<Preset> heat_presets();
/// One read and one write of each interior float per step, one update per cell.
StepAccounting heat_accounting(std::size_t points);

/// Copies the heat parameters of `c` (validated) into a Heat2DConfig or Heat3DConfig.
template <typename HeatConfig>
void apply_heat_params(const ModelConfig& c, HeatConfig& h) {
  h.alpha = c.number("alpha");
  h.dt = c.number("dt");
  h.fixed_value = c.number("fixed_value");
  h.seed = static_cast<std::uint32_t>(c.number("seed"));
  h.boundary = parse_boundary(c.word("boundary"));
  h.initial = parse_initial_condition(c.word("initial"));
}

}  // namespace ss
