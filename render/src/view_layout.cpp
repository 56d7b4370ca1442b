#include "stencilscope/render/view_layout.hpp"

#include <algorithm>

namespace ss::render {

namespace {
double fit_scale(const PixelRect& area, int nx, int ny, double zoom) {
  return std::min(area.width / nx, area.height / ny) * zoom;  // pixels per cell
}
}  // namespace

FrameLayout frame_layout(int width, int height, bool with_colorbar, double left_px) {
  FrameLayout l;
  l.width = width;
  l.height = height;
  const double left = std::clamp(left_px, 0.0, std::max(0.0, width - 1.0));  // at least a pixel for the views
  const int strip = with_colorbar && width - left > 2 * kColorbarStripPx ? kColorbarStripPx : 0;
  l.field_area = {left, 0, width - strip - left, static_cast<double>(height)};
  if (strip > 0) {
    const double margin = std::max(16.0, height * 0.08);
    l.colorbar = {static_cast<double>(width - strip + 14), margin, 22, std::max(1.0, height - 2 * margin)};
  }
  return l;
}

PixelRect field_rect(const PixelRect& area, int nx, int ny, const ViewTransform& view) {
  const double s = fit_scale(area, nx, ny, view.zoom);
  const double cx = nx / 2.0 + view.pan_x, cy = ny / 2.0 + view.pan_y;
  PixelRect r;
  r.width = nx * s;
  r.height = ny * s;
  r.x = area.x + area.width / 2 - cx * s;
  r.y = area.y + area.height / 2 - (ny - cy) * s;
  return r;
}

std::array<double, 2> pixel_to_cell(const PixelRect& area, int nx, int ny, const ViewTransform& view, double px,
                                    double py) {
  const PixelRect r = field_rect(area, nx, ny, view);
  const double s = r.width / nx;
  return {(px - r.x) / s, ny - (py - r.y) / s};
}

ViewTransform zoom_about(const ViewTransform& view, const PixelRect& area, int nx, int ny, double px, double py,
                         double factor) {
  const auto before = pixel_to_cell(area, nx, ny, view, px, py);
  ViewTransform v = view;
  v.zoom = std::clamp(view.zoom * factor, kMinZoom, kMaxZoom);
  const auto after = pixel_to_cell(area, nx, ny, v, px, py);
  v.pan_x += before[0] - after[0];
  v.pan_y += before[1] - after[1];
  return v;
}

ViewTransform pan_by(const ViewTransform& view, const PixelRect& area, int nx, int ny, double dx, double dy) {
  const double s = fit_scale(area, nx, ny, view.zoom);
  ViewTransform v = view;
  v.pan_x -= dx / s;
  v.pan_y += dy / s;  // pixel y grows downwards, cell y upwards
  return v;
}

}  // namespace ss::render
