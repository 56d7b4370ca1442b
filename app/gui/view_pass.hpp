#pragma once
// What the window and the recorder share: drawing the field view off-screen, following
// the range mode, and one ImGui frame of panels with its actions applied.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "live_simulation.hpp"
#include "panels.hpp"
#include "settings.hpp"
#include "stencilscope/render/field_renderer.hpp"
#include "stencilscope/render/image_io.hpp"
#include "stencilscope/render/render_target.hpp"

namespace ss::app {

/// A 3D model's frame: the field area split 2x2, the XY slice top left, XZ top right,
/// YZ bottom left, the sketch of where they cut bottom right.
struct SliceLayout {
  std::array<render::PixelRect, 3> slice;  ///< indexed by SliceAxis
  render::PixelRect sketch;
};
SliceLayout slice_layout(const render::PixelRect& field_area);

/// A point of a slice view under the cursor: the view and its cell coordinates (u, v).
struct SlicePick {
  int view = -1;
  double u = 0, v = 0;
};
/// The slice view under pixel (px, py) of a frame laid out by slice_layout(field_area),
/// view k being sizes[k] = (nu, nv) cells fitted into its pane; empty when the pixel is
/// on no slice (the gaps, the sketch, the margins around a fitted slice).
std::optional<SlicePick> pick_slice(const render::PixelRect& field_area, const std::array<std::array<int, 2>, 3>& sizes,
                                    double px, double py);

/// The cell (x, y, z) under cell coordinates (u, v) of view `view` (2D models: the field,
/// z 0; 3D: XY at z = slices[0], XZ at y = slices[1], YZ at x = slices[2]), clamped into
/// the grid `size`.
std::array<int, 3> cell_of_view(int dims, int view, double u, double v, const std::array<int, 3>& slices,
                                const std::array<int, 3>& size);

/// "XY  z = 12" etc.: the label drawn on slice view `view`.
std::string slice_label(int view, int position);

/// The sketch in `area`: an oblique wireframe box of nx-by-ny-by-nz and the three
/// slice planes at `slices` (XY: z, XZ: y, YZ: x), each in its own colour.
std::vector<render::OverlayLine> slice_sketch(const render::PixelRect& area, int nx, int ny, int nz,
                                              const std::array<int, 3>& slices);

/// The colours of the XY, XZ and YZ planes in the sketch.
inline constexpr std::array<std::array<std::uint8_t, 4>, 3> kSliceRgba{
    {{255, 110, 90, 255}, {110, 220, 110, 255}, {100, 160, 255, 255}}};

/// The field view drawn into an off-screen target, ready to be read back or shown.
class ViewPass {
 public:
  /// Builds the renderer; a shader that fails to compile leaves error() set instead of throwing,
  /// so the window can show the message.
  ViewPass();
  /// Draws into the target (re-created when width x height changes); leaves it bound.
  /// The views take the frame right of `side_bar_px` (see view_layout); the strip left of
  /// it is only cleared. Without a renderer it only clears. Throws render::GLError.
  void draw(const render::FieldTexture& field, int width, int height, const render::ViewStyle& style,
            double side_bar_px = 0);
  /// The simulation's views: a 2D model its field (as above), a 3D model the three slices
  /// (fitted, no zoom or pan) and the sketch; with A/B on, the panes of slice_layout hold
  /// A, B and B - A (its own symmetric range, blue-red) of the field or the XY slice.
  /// Probes are marked with crosses where their cell shows.
  void draw(const LiveSimulation& sim, int width, int height, const render::ViewStyle& style, double side_bar_px = 0);
  /// The last drawn frame, RGBA, top row first.
  render::Image read() const;
  const render::RenderTarget& target() const { return *target_; }
  const std::string& error() const { return error_; }

 private:
  std::optional<render::FieldRenderer> renderer_;
  std::optional<render::RenderTarget> target_;
  std::string error_;
};

/// The range drawn each frame, following the view's range mode.
class RangeFollower {
 public:
  /// Updates and returns the range for this frame from the field's stats (when known).
  render::ValueRange update(const ViewSettings& view, const std::optional<render::FieldStats>& stats);
  /// The expanding range starts again from the next field.
  void restart() { restart_ = true; }
  const render::ValueRange& drawn() const { return drawn_; }

 private:
  render::ValueRange drawn_{-1.5, 1.5};
  bool restart_ = true;
};

/// Has `sim` keep the medium overlay's textures while the view draws it (a model with a
/// medium and view.style.medium_overlay), and drop them otherwise.
void follow_medium_overlay(LiveSimulation& sim, const ViewSettings& view);

/// Applies the panel actions that concern the simulation and the view.
void apply_actions(const PanelActions& a, LiveSimulation& sim, SimSettings& settings, ViewSettings& view,
                   RangeFollower& range);

}  // namespace ss::app
