#pragma once
// Where things go in a frame: the field's rectangle under zoom and pan, the colorbar,
// and the mapping from pixels back to cells (for painting and zooming about the cursor).
// Pure math, no GL: the renderer, the mouse handling and the tests all use it.
// Pixels have their origin at the top left (as in window events and PNG files);
// cells have theirs at the bottom left: cell (i, j) covers [i, i+1) x [j, j+1).
#include <array>

namespace ss::render {

/// A rectangle in pixels, origin at the top left.
struct PixelRect {
  double x = 0, y = 0, width = 0, height = 0;
  bool contains(double px, double py) const { return px >= x && px < x + width && py >= y && py < y + height; }
};

/// Zoom and pan of the field view. zoom 1 fits the whole field in the area; the area's
/// centre shows the point (nx / 2 + pan_x, ny / 2 + pan_y) in cell units.
struct ViewTransform {
  double zoom = 1.0;
  double pan_x = 0, pan_y = 0;
};

/// Width of the strip on the right that holds the colorbar and its labels, in pixels.
inline constexpr int kColorbarStripPx = 120;

/// A frame split into the field area and the colorbar.
struct FrameLayout {
  int width = 0, height = 0;  ///< the whole frame
  PixelRect field_area;       ///< where the field is drawn (clipped to this)
  PixelRect colorbar;         ///< the colour ramp itself; empty when there is no colorbar
};

/// The layout of a width-by-height frame, with or without a colorbar strip on the right.
/// `left_px`: a strip on the left that something else covers (the app's side bar); the
/// field area and the colorbar share the rest, so the colorbar stays with its field.
FrameLayout frame_layout(int width, int height, bool with_colorbar, double left_px = 0);

/// The rectangle the whole nx-by-ny field covers (may extend past the area when zoomed in).
PixelRect field_rect(const PixelRect& area, int nx, int ny, const ViewTransform& view);

/// The cell coordinates (continuous) under pixel (px, py).
std::array<double, 2> pixel_to_cell(const PixelRect& area, int nx, int ny, const ViewTransform& view, double px,
                                    double py);

/// The range zoom_about keeps the zoom in.
inline constexpr double kMinZoom = 0.05, kMaxZoom = 1000.0;

/// The view zoomed by `factor` about pixel (px, py): the cell under it stays under it. Zoom is kept in [kMinZoom, kMaxZoom].
ViewTransform zoom_about(const ViewTransform& view, const PixelRect& area, int nx, int ny, double px, double py,
                         double factor);

/// The view dragged by (dx, dy) pixels: the content follows the mouse.
ViewTransform pan_by(const ViewTransform& view, const PixelRect& area, int nx, int ny, double dx, double dy);

}  // namespace ss::render
