#pragma once
// Scene files: a setup saved as TOML and opened again (the window, `record --scene`,
// `bench --scene`). What a scene holds is checked through the model interface
// (sim/core/model.hpp), so nothing here knows a particular model:
//
//   model = "heat3d"
//   size = [128, 128, 128]     # [nx, ny] for 2D models
//   order = 8
//   variant = "stream25d"      # optional; absent or "auto": the fastest on the device
//   [params]                   # the model's parameters by name, typed as their spec
//   boundary = "periodic"
//   [view]
//   colormap = "inferno"
//   range = "auto"             # "auto", "expanding", or [lo, hi]
//   sampling = "nearest"
//   slices = [64, 64, 64]      # 3D: z of XY, y of XZ, x of YZ (-1: the middle)
//   zoom = 1                   # the 2D view's zoom, 0.05..1000 (the mouse wheel's)
//   pan = [0, 0]               # the 2D view's centre, cells from the field's centre (x, y)
//   steps_per_frame = 0        # 0: adaptive
//   probes = [[10, 20, 0]]     # cells [x, y, z] whose values the Plots follow (z 0 in 2D)
//   overlay = false            # the medium drawn over the field (models with a medium)
//   overlay_opacity = 0.4      # 0..1
//   [ab]                       # a second run B beside the running one (AbSettings)
//   enabled = true
//   order = 2                  # 0: A's
//   variant = ""               # "": A's
//   [ab.params]                # B's parameters that differ from A's
//   [receivers]                # models with point sources (ModelInfo::source_kinds)
//   plane = "xy"               # xy, xz or yz
//   position = 0               # index along the plane's normal
//   shape = "line"             # line or grid
//   line_at = 32               # line: index along the plane's second axis
//   spacing = 1                # every spacing-th node
//   [[sources]]                # present (or sources = []): they replace the model's own source
//   kind = "pressure"          # one of the model's source kinds
//   node = [40, 32, 10]        # inside the grid
//   f0 = 10                    # Ricker peak frequency [Hz]
//   amplitude = 1
//   delay = 0                  # [s], after the wavelet's own 1.5 / f0
//   direction = [0, 0, 1]      # force only
//   moment = [1, 1, 1, 0, 0, 0]  # moment only: xx, yy, zz, xy, xz, yz
//
// The view's words (colormap, sampling) are kept as text here and checked by the app,
// which knows the renderer's names; SceneFile::where() gives it the file and line.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/model.hpp"

namespace ss::app {

/// The zoom a scene may hold (render's kMinZoom, kMaxZoom: the app checks they agree).
inline constexpr double kSceneMinZoom = 0.05, kSceneMaxZoom = 1000.0;

/// The colour range of a scene: "auto", "expanding", or "fixed" with lo < hi.
struct SceneRange {
  std::string mode = "auto";
  double lo = -1.5, hi = 1.5;  ///< fixed only
};

/// A/B as a scene holds it (the app's AbSettings): what run B changes.
struct SceneAb {
  bool enabled = false;
  int order = 0;            ///< 0: A's
  std::string variant;      ///< empty: A's
  ParamValues params;       ///< B's parameters that differ from A's
};

/// A scene as read from (or written to) a file; every value has been checked.
struct SceneFile {
  std::string path;                         ///< as given; empty for a scene not read from a file
  std::string model;                        ///< a registered model's name
  std::optional<std::array<int, 3>> size;   ///< nz 1 for 2D models; absent: the caller's default
  std::optional<int> order;                 ///< absent: the model's default
  std::string variant;                      ///< a live variant; empty: the fastest on the device
  ParamValues params;                       ///< every parameter of the model (defaults filled in)
  std::string colormap = "viridis";         ///< checked by the app (render's names)
  SceneRange range;
  std::string sampling = "nearest";         ///< checked by the app (render's names)
  bool colorbar = true;
  std::string quantity;                     ///< one of the model's view quantities; empty: its default
  std::array<int, 3> slices{-1, -1, -1};    ///< 3D models: z of XY, y of XZ, x of YZ; -1: the middle
  int steps_per_frame = 0;                  ///< 0: adaptive
  std::vector<std::array<int, 3>> probes;   ///< cells (x, y, z) the Plots follow, inside the grid
  double zoom = 1;                          ///< the 2D view's zoom (ViewTransform), 0.05..1000
  std::array<double, 2> pan{0, 0};          ///< the 2D view's centre, cells from the field's centre
  bool overlay = false;                     ///< the medium drawn over the field
  double overlay_opacity = 0.4;             ///< 0..1
  SceneAb ab;
  /// Models with point sources: the sources that replace the model's own (absent: its own;
  /// empty: none), checked against the grid and the model's kinds.
  std::optional<std::vector<SourceSpec>> sources;
  std::optional<ReceiverLayout> receivers;  ///< absent: the model's default layout
  std::map<std::string, int, std::less<>> lines;  ///< "view.colormap" -> its line in the file

  /// "scene.toml:7" for a key read from line 7, else the path (or "scene" without one).
  std::string where(std::string_view key) const;
};

/// Reads and checks the scene in `path`; throws ss::Error with one line naming the
/// file, the line and the key ("scene.toml:7: params.alpha = -1 is out of range (...)")
/// for a syntax error, an unknown key or parameter, a wrong type, a value out of range,
/// an unknown model or variant.
SceneFile read_scene(const std::string& path);

/// Reads and checks a scene from `text`, naming `path` in its errors (tests, stdin).
SceneFile parse_scene(std::string_view text, const std::string& path);

/// The TOML text of `scene`: every key, every parameter of the model, a comment per line.
std::string scene_text(const SceneFile& scene);

/// Fills scene.sources and scene.receivers from `running` (when it is the scene's model
/// and has point sources): what the mouse or --point-source placed is saved with the scene.
void take_sources(SceneFile& scene, const Simulation& running);

/// Puts the scene's sources (replacing the simulation's own, as --point-source does) and
/// receivers on `sim`; throws ss::Error naming the file, the line and the key.
void apply_scene_sources(const SceneFile& scene, Simulation& sim);

/// Writes scene_text(scene) to `path`; throws ss::Error naming the path when it cannot.
void write_scene(const std::string& path, const SceneFile& scene);

}  // namespace ss::app
