#pragma once
// Plain structs the app owns and the ImGui panels edit (the UI owns no simulation state).
// The simulation settings name a registered model (sim/core/model.hpp) and hold its
// parameters by name: nothing here knows a particular model.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "scene_file.hpp"
#include "sim/core/model.hpp"
#include "stencilscope/render/field_renderer.hpp"

namespace ss::app {

/// How a GPU field reaches the texture.
enum class UploadChoice {
  automatic,  ///< interop when it registers, else device -> host -> texture
  host_copy,  ///< always device -> host -> texture (to compare with interop)
  interop,    ///< interop or an error (tests)
};

/// A/B: a second run B of the same model beside the running one (A), from A's state,
/// stepping with it; what B changes (an order, a variant, parameters) and nothing else.
struct AbSettings {
  bool enabled = false;
  int order = 0;            ///< B's stencil order; 0: A's
  std::string variant;      ///< B's variant; empty: A's
  ParamValues params;       ///< B's parameters that differ from A's
};

/// What to simulate and how to advance it. Changing the model, the size or a parameter
/// that rebuilds restarts the field; order and variant change on the live field.
struct SimSettings {
  std::string model = "heat2d";  ///< a registered model's name
  int nx = 1024, ny = 1024;
  int nz = 1;                    ///< 3D models only
  int order = 8;
  std::string variant = "stream";  ///< one of the model's variants; empty: the fastest on the running device
  ParamValues params;              ///< the model's parameters; missing ones take their defaults
  /// 3D models: position of the XY (z = k), XZ (y = j) and YZ (x = i) slices; -1 is the
  /// middle. LiveSimulation clamps them into the grid and writes them back.
  std::array<int, 3> slice{-1, -1, -1};
  std::string quantity;           ///< what the views show; empty: the model's default
  bool paused = false;
  bool adaptive_steps = true;     ///< steps per frame follow frame_budget_ms
  int steps_per_frame = 10;       ///< when not adaptive (and while recording)
  /// Stepping time each adaptive batch aims at, in ms; 0 is automatic (frame_budget_ms()).
  double frame_budget_ms = 0.0;
  /// Max speed for long runs: the views are refreshed (upload, A/B difference) after
  /// every draw_every-th batch only; 1 refreshes after each. Recording refreshes each.
  int draw_every = 1;
  UploadChoice upload = UploadChoice::automatic;
  /// Cells (x, y, z; z 0 in 2D) whose values over time the Plots show; kept when they
  /// stay inside the grid.
  std::vector<std::array<int, 3>> probes;
  AbSettings ab;
};

/// The automatic batch length on the GPU, whose batches are queued ahead of the frame with
/// a snapshot of the views after each: about one frame of a 60 Hz display, so that almost
/// every snapshot is shown (at 10 ms four in ten were taken and never shown; on an H200 the
/// window's loop made 0.944-0.945 of bench's steps per second at 10 ms, 0.952-0.953 at 16).
inline constexpr double kGpuFrameBudgetMs = 16.0;
/// The automatic batch length on the CPU, which steps between two frames of the window.
inline constexpr double kCpuFrameBudgetMs = 10.0;
/// The batch length in use: s.frame_budget_ms when set, else the automatic one for the device.
inline double frame_budget_ms(const SimSettings& s, bool on_gpu) {
  return s.frame_budget_ms > 0 ? s.frame_budget_ms : on_gpu ? kGpuFrameBudgetMs : kCpuFrameBudgetMs;
}

/// Reads one `--ab KEY=VALUE` into `ab` (KEY: order, variant, or a parameter of `model`),
/// turning A/B on; throws ss::Error naming the key and what it accepts.
void parse_ab_assignment(std::string_view text, const Model& model, AbSettings& ab);
/// "order 2", "variant cpu, alpha 0.1": what B changes ("nothing" when it changes nothing).
std::string ab_text(const AbSettings& ab);

/// The mouse brush: left drag paints `hot`, right drag paints `cold`.
struct BrushSettings {
  double radius_cells = 16;
  double hot = 1.5;
  double cold = -1.5;
};

/// The source tool: what a left click on a slice puts at the clicked node of a model with
/// point sources while `place_mode` is on (on by default; off, the click paints). It fires at the time of the
/// click (its delay is the simulated time then).
struct SourceTool {
  bool place_mode = true;                          ///< a left click places a source instead of painting
  int kind = 0;                                    ///< index into the model's source_kinds
  double f0_hz = 10;
  double amplitude = 1;
  std::array<double, 3> direction{0, 0, 1};        ///< force
  std::array<double, 6> moment{1, 1, 1, 0, 0, 0};  ///< moment: xx, yy, zz, xy, xz, yz
  ReceiverLayout receivers;                        ///< the receivers as edited (applied by a button)
  bool receivers_edited = false;                   ///< false: `receivers` follows the running ones
};

/// How the field is shown.
struct ViewSettings {
  render::ViewStyle style;
  render::RangeMode range_mode = render::RangeMode::automatic;
  render::ValueRange fixed_range{-1.5, 1.5};
  bool show_ui = true;
};

/// The registered model the settings name; throws ss::Error for an unknown name.
const Model& model_of(const SimSettings& s);
/// The variant spec the settings name, or nullptr (empty or unknown variant).
const VariantSpec* variant_of(const SimSettings& s);
/// True when the settings' variant runs on the GPU.
bool runs_on_gpu(const SimSettings& s);
/// The validated configuration of the settings (throws ss::Error naming what is wrong).
ModelConfig to_model_config(const SimSettings& s);
/// Starts `model`'s default scene: its default size and order, its parameters at
/// their defaults, slices through the middle, its fastest variant on the GPU or the CPU.
void switch_model(SimSettings& s, const Model& model, bool gpu);
/// The model's fastest variant on the GPU or the CPU.
void use_fastest_variant(SimSettings& s, bool gpu);
/// "nx x ny" or "nx x ny x nz", as the model's dimensions say.
std::string size_text(const SimSettings& s);

/// The scene the panels show: model, size, order, variant, every parameter, the view.
SceneFile to_scene_file(const SimSettings& sim, const ViewSettings& view);
/// The same with the running simulation's sources and receivers (models with point sources).
SceneFile to_scene_file(const SimSettings& sim, const ViewSettings& view, const Simulation& running);
/// Sets the scene's values in `sim` and `view` (an empty variant stays empty: the caller
/// picks the fastest); the sources and receivers are the simulation's (apply_scene_sources
/// once it is built); what a scene does not hold (upload, pause, brush) is kept. Throws
/// ss::Error naming the file, line and key for a colormap or sampling the renderer does
/// not know; then neither is changed.
void apply_scene_file(const SceneFile& scene, SimSettings& sim, ViewSettings& view);
/// Writes the scene of `sim` and `view` to `path` (scene_file.hpp); throws ss::Error.
void write_scene(const std::string& path, const SimSettings& sim, const ViewSettings& view);
/// The same with the running simulation's sources and receivers.
void write_scene(const std::string& path, const SimSettings& sim, const ViewSettings& view, const Simulation& running);

}  // namespace ss::app
