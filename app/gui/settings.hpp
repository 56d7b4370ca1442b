#pragma once
// Plain structs the app owns and the ImGui panels edit (the UI owns no simulation state).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "stencilscope/deriv3d.hpp"
#include "stencilscope/heat2d.hpp"
#include "stencilscope/heat3d.hpp"
#include "stencilscope/render/field_renderer.hpp"

namespace ss::app {

/// How a GPU field reaches the texture.
enum class UploadChoice {
  automatic,  ///< interop when it registers, else device -> host -> texture
  host_copy,  ///< always device -> host -> texture (to compare with interop)
  interop,    ///< interop or an error (tests)
};

/// The model the app runs: heat 2D shows the field; heat 3D and deriv3d (a static field:
/// the derivative of f = cos(2 pi (x + y + z)) along one axis) three axis-aligned slices.
enum class Model { heat2d, heat3d, deriv3d };
inline constexpr std::array kAllModels = {Model::heat2d, Model::heat3d, Model::deriv3d};
/// "heat2d" / "heat3d" / "deriv3d".
std::string_view to_string(Model m);
/// Throws ss::Error naming the bad word and the accepted ones.
Model parse_model(std::string_view s);

/// What to simulate and how to advance it. Changing nx, ny, boundary, initial, alpha, dt,
/// fixed_value or seed rebuilds the field; order and variant change on the live field.
struct SimSettings {
  Model model = Model::heat2d;
  int nx = 1024, ny = 1024;
  int nz = 128;  ///< heat 3D only
  int order = 8;
  Heat2DVariant variant = Heat2DVariant::stream;      ///< heat 2D
  Heat3DVariant variant3d = Heat3DVariant::stream25d;  ///< heat 3D
  Deriv3DVariant deriv_variant = Deriv3DVariant::stream;  ///< deriv3d
  Axis deriv_axis = Axis::x;                              ///< deriv3d: the derivative shown
  /// heat 3D: position of the XY (z = k), XZ (y = j) and YZ (x = i) slices; -1 is the
  /// middle. LiveSimulation clamps them into the grid and writes them back.
  std::array<int, 3> slice{-1, -1, -1};
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

/// True when the settings' variant (of their model) runs on the GPU.
inline bool runs_on_gpu(const SimSettings& s) {
  switch (s.model) {
    case Model::heat2d: return is_gpu(s.variant);
    case Model::heat3d: return is_gpu(s.variant3d);
    case Model::deriv3d: return is_gpu(s.deriv_variant);
  }
  return false;
}

/// The heat 3D configuration of the settings (nx, ny, nz and the shared fields).
inline Heat3DConfig to_config3d(const SimSettings& s) {
  Heat3DConfig c;
  c.nx = s.nx;
  c.ny = s.ny;
  c.nz = s.nz;
  c.order = s.order;
  c.alpha = s.alpha;
  c.dt = s.dt;
  c.boundary = s.boundary;
  c.fixed_value = s.fixed_value;
  c.initial = s.initial;
  c.seed = s.seed;
  return c;
}

/// The deriv3d configuration of the settings.
inline Deriv3DConfig to_deriv_config(const SimSettings& s) {
  Deriv3DConfig c;
  c.nx = s.nx;
  c.ny = s.ny;
  c.nz = s.nz;
  c.order = s.order;
  return c;
}

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
