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
//   steps_per_frame = 0        # 0: adaptive
//   probes = [[10, 20, 0]]     # cells [x, y, z] whose values the Plots follow (z 0 in 2D)
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

/// The colour range of a scene: "auto", "expanding", or "fixed" with lo < hi.
struct SceneRange {
  std::string mode = "auto";
  double lo = -1.5, hi = 1.5;  ///< fixed only
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

/// Writes scene_text(scene) to `path`; throws ss::Error naming the path when it cannot.
void write_scene(const std::string& path, const SceneFile& scene);

}  // namespace ss::app
