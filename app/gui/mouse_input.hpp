#pragma once
// Mouse on the field view, independent of the window system: the window samples
// GLFW into a MouseSample each frame; tests build samples directly.
#include "live_simulation.hpp"
#include "settings.hpp"

namespace ss::app {

/// One frame's mouse, in framebuffer pixels.
struct MouseSample {
  int fb_width = 0, fb_height = 0;  ///< framebuffer size
  double x = 0, y = 0;              ///< cursor
  double dx = 0, dy = 0;            ///< cursor motion since the last frame
  double wheel = 0;                 ///< wheel steps this frame
  bool left = false, right = false, middle = false, ctrl = false, shift = false;
  bool ui_wants_mouse = false;      ///< ImGui has the mouse: the view ignores it
  double side_bar_px = 0;           ///< the side bar covers x < side_bar_px; the views lie right of it
};

/// Mouse state between frames (drags paint along the path, not only at frame samples).
struct MouseState {
  bool painting = false;
  int pane = 0;  ///< the view the drag started on (heat 3D: a slice)
  bool placed_probe = false;  ///< the shift+click has placed its probe (one per click)
  double last_x = 0, last_y = 0;
  bool placing = false;  ///< the left button placed a source and is still down (one source per click)
};

/// Applies the mouse to the view: left drag paints `brush.hot`, right drag `brush.cold`
/// (dabs along the path), the wheel zooms about the cursor and middle or Ctrl+left drag
/// pans (heat 2D; slices are fitted to their panes). On a 3D model the drag paints on the
/// slice it started on.
/// Shift+left click places a probe at the cell under the cursor in `settings->probes`
/// (a 3D slice: the cell of the volume it shows there); none without settings. With A/B
/// on, the A, B and difference panes are fitted like slices and a drag paints both runs.
/// With `tool` on a model with point sources and tool->place_mode on, a left click on a
/// slice places one source at the clicked node instead of painting.
void apply_mouse(const MouseSample& m, LiveSimulation& sim, ViewSettings& view, const BrushSettings& brush,
                 MouseState& state, SimSettings* settings = nullptr, const SourceTool* tool = nullptr);

}  // namespace ss::app
