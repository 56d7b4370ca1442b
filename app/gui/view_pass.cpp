#include "view_pass.hpp"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace ss::app {

ViewPass::ViewPass() {
  try {
    renderer_.emplace();
  } catch (const render::GLError& e) {
    error_ = e.what();
    std::fprintf(stderr, "stencilscope: error: %s\n", e.what());
  }
}

void ViewPass::draw(const render::FieldTexture& field, int width, int height, const render::ViewStyle& style) {
  if (!target_ || target_->width() != width || target_->height() != height) {
    target_.reset();
    target_.emplace(width, height);
  }
  target_->bind();
  const render::FrameLayout layout = render::frame_layout(width, height, style.colorbar);
  if (renderer_) renderer_->draw(field, layout, style);
}

void ViewPass::draw(const LiveSimulation& sim, int width, int height, const render::ViewStyle& style) {
  if (sim.views() == 1) {
    draw(sim.texture(), width, height, style);
    return;
  }
  if (!target_ || target_->width() != width || target_->height() != height) {
    target_.reset();
    target_.emplace(width, height);
  }
  target_->bind();
  const render::FrameLayout layout = render::frame_layout(width, height, style.colorbar);
  const SliceLayout panes = slice_layout(layout.field_area);
  std::vector<render::FieldPane> fields;
  for (int v = 0; v < 3; ++v)
    fields.push_back({&sim.texture(v), panes.slice[static_cast<std::size_t>(v)],
                      slice_label(v, sim.slices()[static_cast<std::size_t>(v)]), kSliceRgba[static_cast<std::size_t>(v)]});
  const Grid3D& g = *sim.grid3d();
  const std::vector<render::OverlayLine> sketch = slice_sketch(panes.sketch, g.nx, g.ny, g.nz, sim.slices());
  if (renderer_) renderer_->draw_panes(fields, layout, style, sketch);
}

SliceLayout slice_layout(const render::PixelRect& a) {
  const double gap = 4, w = (a.width - gap) / 2, h = (a.height - gap) / 2;
  SliceLayout l;
  l.slice[0] = {a.x, a.y, w, h};
  l.slice[1] = {a.x + w + gap, a.y, w, h};
  l.slice[2] = {a.x, a.y + h + gap, w, h};
  l.sketch = {a.x + w + gap, a.y + h + gap, w, h};
  return l;
}

std::optional<SlicePick> pick_slice(const render::PixelRect& field_area, const std::array<std::array<int, 2>, 3>& sizes,
                                    double px, double py) {
  const SliceLayout panes = slice_layout(field_area);
  for (int k = 0; k < 3; ++k) {
    const render::PixelRect& pane = panes.slice[static_cast<std::size_t>(k)];
    const auto [nu, nv] = sizes[static_cast<std::size_t>(k)];
    if (!pane.contains(px, py) || !render::field_rect(pane, nu, nv, {}).contains(px, py)) continue;
    const auto cell = render::pixel_to_cell(pane, nu, nv, {}, px, py);
    return SlicePick{k, cell[0], cell[1]};
  }
  return std::nullopt;
}

std::string slice_label(int view, int position) {
  static constexpr const char* kNames[] = {"XY  z = ", "XZ  y = ", "YZ  x = "};
  return kNames[view] + std::to_string(position);
}

std::vector<render::OverlayLine> slice_sketch(const render::PixelRect& area, int nx, int ny, int nz,
                                              const std::array<int, 3>& slices) {
  // Oblique projection: x to the right, y up, z receding up and to the right at 30 degrees, half length.
  const double zx = 0.5 * std::cos(0.5236), zy = 0.5 * std::sin(0.5236);
  const double width = nx + nz * zx, height = ny + nz * zy;
  const double scale = 0.8 * std::min(area.width / width, area.height / height);
  const double ox = area.x + (area.width - width * scale) / 2;
  const double oy = area.y + (area.height + height * scale) / 2;  // pixel of (0, 0, 0): bottom left
  auto project = [&](double x, double y, double z) {
    return std::array<float, 2>{static_cast<float>(ox + (x + z * zx) * scale),
                                static_cast<float>(oy - (y + z * zy) * scale)};
  };
  std::vector<render::OverlayLine> lines;
  auto quad = [&](std::array<std::array<double, 3>, 4> c, std::array<std::uint8_t, 4> rgba, float w) {
    for (int e = 0; e < 4; ++e) {
      const auto p = project(c[e][0], c[e][1], c[e][2]);
      const auto q = project(c[(e + 1) % 4][0], c[(e + 1) % 4][1], c[(e + 1) % 4][2]);
      lines.push_back({p[0], p[1], q[0], q[1], rgba, w});
    }
  };
  const std::array<std::uint8_t, 4> box{200, 200, 200, 255};
  const double X = nx, Y = ny, Z = nz;
  quad({{{0, 0, 0}, {X, 0, 0}, {X, Y, 0}, {0, Y, 0}}}, box, 1.0f);
  quad({{{0, 0, Z}, {X, 0, Z}, {X, Y, Z}, {0, Y, Z}}}, box, 1.0f);
  for (auto [x, y] : {std::pair{0.0, 0.0}, {X, 0.0}, {X, Y}, {0.0, Y}}) {
    const auto p = project(x, y, 0), q = project(x, y, Z);
    lines.push_back({p[0], p[1], q[0], q[1], box, 1.0f});
  }
  const double z = slices[0] + 0.5, y = slices[1] + 0.5, x = slices[2] + 0.5;
  quad({{{0, 0, z}, {X, 0, z}, {X, Y, z}, {0, Y, z}}}, kSliceRgba[0], 2.0f);
  quad({{{0, y, 0}, {X, y, 0}, {X, y, Z}, {0, y, Z}}}, kSliceRgba[1], 2.0f);
  quad({{{x, 0, 0}, {x, Y, 0}, {x, Y, Z}, {x, 0, Z}}}, kSliceRgba[2], 2.0f);
  return lines;
}

render::Image ViewPass::read() const { return {target_->width(), target_->height(), target_->read_rgba()}; }

render::ValueRange RangeFollower::update(const ViewSettings& view, const std::optional<render::FieldStats>& stats) {
  if (!stats && view.range_mode != render::RangeMode::fixed) return drawn_;
  const render::ValueRange field = stats ? stats->range : drawn_;
  drawn_ = render::next_range(view.range_mode, view.fixed_range, drawn_, field, restart_);
  if (stats) restart_ = false;
  return drawn_;
}

void apply_actions(const PanelActions& a, LiveSimulation& sim, SimSettings& settings, ViewSettings& view,
                   RangeFollower& range) {
  if (a.clear_error) {
    sim.clear_error();
    sim.clear_note();
  }
  if (a.reset) {
    sim.reset();
    range.restart();
  }
  if (a.step_once) sim.step_once(settings);
  if (a.reset_view) view.style.transform = {};
  if (a.reset_range) range.restart();
  if (a.validation_visible) sim.request_validation();
}

}  // namespace ss::app
