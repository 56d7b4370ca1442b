// Mouse on the field view: paint, zoom, pan (see mouse_input.hpp).
#include "mouse_input.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "side_bar.hpp"
#include "stencilscope/render/view_layout.hpp"
#include "view_pass.hpp"

namespace ss::app {

void apply_mouse(const MouseSample& m, LiveSimulation& sim, ViewSettings& view, const BrushSettings& brush,
                 MouseState& state, SimSettings* settings, const SourceTool* tool) {
  if (!m.left) state.placing = false;
  const render::FrameLayout layout = view_layout(m.fb_width, m.fb_height, view.style.colorbar, m.side_bar_px);
  // The view under the cursor: a 2D field (zoomable), or a pane of slice_layout (fitted):
  // a 3D model's slices, or A, B and B - A of the first view with A/B on.
  const bool ab = sim.ab_active();
  const bool slices = sim.views() == 3 || ab;
  int pane = 0;
  const render::PixelRect& area = layout.field_area;
  std::optional<SlicePick> pick;
  if (slices) {
    auto size_of = [&](int k) {
      const render::FieldTexture& t = sim.texture(ab ? 0 : k);
      return std::array{t.nx(), t.ny()};
    };
    pick = pick_slice(area, {size_of(0), size_of(1), size_of(2)}, m.x, m.y);
    pane = pick ? pick->view : -1;
  }
  const bool over_field = slices ? pick.has_value() : area.contains(m.x, m.y);
  if (!m.left) state.placed_probe = false;
  if (m.ui_wants_mouse || !over_field || (state.painting && pane != state.pane)) {
    state.painting = false;
    return;
  }
  const int shown = ab ? 0 : pane;  // the simulation's view under the cursor
  const int nx = sim.texture(shown).nx(), ny = sim.texture(shown).ny();
  if (m.shift && m.left) {  // a probe at the cell under the cursor, once per click
    if (settings && !state.placed_probe) {
      const auto uv = slices ? std::array{pick->u, pick->v}
                             : render::pixel_to_cell(area, nx, ny, view.style.transform, m.x, m.y);
      const std::array<int, 3> cell = cell_of_view(sim.model().dims, shown, uv[0], uv[1], sim.slices(), sim.config().size);
      if (std::find(settings->probes.begin(), settings->probes.end(), cell) == settings->probes.end())
        settings->probes.push_back(cell);
    }
    state.placed_probe = true;
    state.painting = false;
    return;
  }
  if (m.wheel != 0 && !slices)
    view.style.transform = render::zoom_about(view.style.transform, area, nx, ny, m.x, m.y, std::pow(1.15, m.wheel));
  const bool ctrl = m.ctrl, left = m.left, right = m.right, middle = m.middle;
  if (middle || (ctrl && left)) {
    if (!slices)
      view.style.transform = render::pan_by(view.style.transform, area, nx, ny, m.dx, m.dy);
    state.painting = false;
    return;
  }
  // Cell coordinates of a pixel on the painted view.
  auto cell_at = [&](double x, double y) -> std::array<double, 2> {
    if (!slices) return render::pixel_to_cell(area, nx, ny, view.style.transform, x, y);
    // A copy: the layout is a temporary. With A/B each pane shows view 0 at the same cells.
    const render::PixelRect p = slice_layout(area).slice[static_cast<std::size_t>(pane)];
    return render::pixel_to_cell(p, nx, ny, {}, x, y);
  };
  // Sources go on a 3D model's slices (not on A/B's panes), in place mode; Shift+click is the probe's.
  const bool places = tool && tool->place_mode && sim.views() == 3 && !ab && !sim.model().source_kinds.empty();
  if (left && places) {
    if (!state.placing) {
      const auto at = cell_at(m.x, m.y);
      sim.place_source(pane, at[0], at[1], *tool);  // a refusal shows in the note banner
    }
    state.placing = true;
    state.painting = false;
    return;
  }
  if (left && state.placing) return;  // the click that placed a source paints nothing when Shift is let go
  if (left || right) {
    const double value = left ? brush.hot : brush.cold;
    const auto to = cell_at(m.x, m.y);
    auto from = to;
    if (state.painting) from = cell_at(state.last_x, state.last_y);
    // Dabs along the drag, half a radius apart, so fast strokes leave no gaps.
    const double length = std::hypot(to[0] - from[0], to[1] - from[1]);
    const int dabs = std::min(64, 1 + static_cast<int>(length / std::max(1.0, brush.radius_cells * 0.5)));
    for (int k = 1; k <= dabs; ++k) {
      const double f = static_cast<double>(k) / dabs;
      sim.paint_view(shown, from[0] + (to[0] - from[0]) * f, from[1] + (to[1] - from[1]) * f, brush.radius_cells, value);
    }
    state.painting = true;
    state.pane = pane;
    state.last_x = m.x;
    state.last_y = m.y;
  } else {
    state.painting = false;
  }
}

}  // namespace ss::app
