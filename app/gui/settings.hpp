#pragma once
// Plain structs the app owns and the ImGui panels edit (the UI owns no simulation state).
#include <cstdint>
#include <string>

#include "stencilscope/heat2d.hpp"
#include "stencilscope/render/field_renderer.hpp"

namespace ss::app {

/// How a GPU field reaches the texture.
enum class UploadChoice {
  automatic,  ///< interop when it registers, else device -> host -> texture
  host_copy,  ///< always device -> host -> texture (to compare with interop)
  interop,    ///< interop or an error (tests)
};

/// What to simulate and how to advance it. Changing nx, ny, boundary, initial, alpha, dt,
/// fixed_value or seed rebuilds the field; order and variant change on the live field.
struct SimSettings {
  int nx = 1024, ny = 1024;
  int order = 8;
  Heat2DVariant variant = Heat2DVariant::stream;
  Boundary boundary = Boundary::analytic;
  InitialCondition initial = InitialCondition::analytic;
  double alpha = 1.0;
  double dt = 0.0;  ///< 0: half the stability limit
  double fixed_value = 0.0;
  std::uint32_t seed = 1;
  bool paused = false;
  bool adaptive_steps = true;     ///< steps per frame follow frame_budget_ms
  int steps_per_frame = 10;       ///< when not adaptive (and while recording)
  double frame_budget_ms = 10.0;  ///< simulation time aimed at per frame when adaptive
  UploadChoice upload = UploadChoice::automatic;
};

/// The mouse brush: left drag paints `hot`, right drag paints `cold`.
struct BrushSettings {
  double radius_cells = 16;
  double hot = 1.5;
  double cold = -1.5;
};

/// How the field is shown.
struct ViewSettings {
  render::ViewStyle style;
  render::RangeMode range_mode = render::RangeMode::automatic;
  render::ValueRange fixed_range{-1.5, 1.5};
  bool show_ui = true;
};

/// The configuration the simulation library validates.
inline Heat2DConfig to_config(const SimSettings& s) {
  Heat2DConfig c;
  c.nx = s.nx;
  c.ny = s.ny;
  c.order = s.order;
  c.alpha = s.alpha;
  c.dt = s.dt;
  c.boundary = s.boundary;
  c.fixed_value = s.fixed_value;
  c.initial = s.initial;
  c.seed = s.seed;
  return c;
}

}  // namespace ss::app
