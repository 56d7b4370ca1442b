#include "view_pass.hpp"

#include <fstream>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include "side_bar.hpp"

namespace ss::app {

ViewPass::ViewPass() {
  try {
    renderer_.emplace();
  } catch (const render::GLError& e) {
    error_ = e.what();
    std::fprintf(stderr, "stencilscope: error: %s\n", e.what());
  }
}

void ViewPass::draw(const render::FieldTexture& field, int width, int height, const render::ViewStyle& style,
                    double side_bar_px) {
  if (!target_ || target_->width() != width || target_->height() != height) {
    target_.reset();
    target_.emplace(width, height);
  }
  target_->bind();
  const render::FrameLayout layout = view_layout(width, height, style.colorbar, side_bar_px);
  if (renderer_) renderer_->draw(field, layout, style);
}

namespace {

/// A cross centred on cell (u, v) of an nu-by-nv view fitted (under `transform`) into `area`;
/// nothing when the cell lies outside the area.
void add_probe_marker(std::vector<render::OverlayLine>& lines, const render::PixelRect& area, int nu, int nv,
                      const render::ViewTransform& transform, int u, int v) {
  const render::PixelRect r = render::field_rect(area, nu, nv, transform);
  const double s = r.width / nu;
  const float x = static_cast<float>(r.x + (u + 0.5) * s), y = static_cast<float>(r.y + (nv - (v + 0.5)) * s);
  if (!area.contains(x, y)) return;
  const float arm = 6;
  const std::array<std::uint8_t, 4> shade{0, 0, 0, 200}, ink{255, 80, 255, 255};
  for (const auto& [rgba, w] : {std::pair{shade, 3.5f}, std::pair{ink, 1.5f}}) {
    lines.push_back({x - arm, y, x + arm, y, rgba, w});
    lines.push_back({x, y - arm, x, y + arm, rgba, w});
  }
}

/// The (u, v) of cell `c` on view `view` when that view shows it (3D: the slice passes through it).
std::optional<std::array<int, 2>> probe_on_view(int dims, int view, const std::array<int, 3>& c,
                                                const std::array<int, 3>& slices) {
  if (dims == 2) return std::array{c[0], c[1]};
  switch (view) {
    case 0: return c[2] == slices[0] ? std::optional(std::array{c[0], c[1]}) : std::nullopt;
    case 1: return c[1] == slices[1] ? std::optional(std::array{c[0], c[2]}) : std::nullopt;
    default: return c[0] == slices[2] ? std::optional(std::array{c[1], c[2]}) : std::nullopt;
  }
}

render::FieldPane pane(const render::FieldTexture* field, const render::PixelRect& area, std::string label,
                       std::array<std::uint8_t, 4> rgba = {235, 235, 235, 255}) {
  render::FieldPane p;
  p.field = field;
  p.area = area;
  p.label = std::move(label);
  p.label_rgba = rgba;
  return p;
}

}  // namespace

void ViewPass::draw(const LiveSimulation& sim, int width, int height, const render::ViewStyle& style,
                    double side_bar_px) {
  const int dims = sim.model().dims;
  std::vector<render::OverlayLine> lines;
  if (sim.views() == 1 && !sim.ab_active()) {
    const render::FrameLayout layout = view_layout(width, height, style.colorbar, side_bar_px);
    const render::FieldTexture& t = sim.texture();
    for (const auto& c : sim.probes())
      add_probe_marker(lines, layout.field_area, t.nx(), t.ny(), style.transform, c[0], c[1]);
    if (!target_ || target_->width() != width || target_->height() != height) {
      target_.reset();
      target_.emplace(width, height);
    }
    target_->bind();
    if (renderer_) renderer_->draw(t, layout, style, lines);
    return;
  }
  if (!target_ || target_->width() != width || target_->height() != height) {
    target_.reset();
    target_.emplace(width, height);
  }
  target_->bind();
  const render::FrameLayout layout = view_layout(width, height, style.colorbar, side_bar_px);
  const SliceLayout panes = slice_layout(layout.field_area);
  std::vector<render::FieldPane> fields;
  if (sim.ab_active()) {  // A, B and B - A of the field (3D: the XY slice); the fourth pane stays empty
    const AbStatus& ab = sim.status().ab;
    const std::string where = dims == 2 ? std::string() : "  " + slice_label(0, sim.slices()[0]);
    const double d = ab.max_abs > 0 ? ab.max_abs : 1e-30;
    fields.push_back(pane(&sim.texture(0), panes.slice[0], "A: " + ab.a_label + where));
    fields.push_back(pane(&sim.ab_texture(0), panes.slice[1], "B: " + ab.b_label + where));
    // Orange reads on blue-red's light middle and on the background alike.
    render::FieldPane diff = pane(&sim.ab_texture(1), panes.slice[2], "B - A", {235, 100, 30, 255});
    diff.range = render::ValueRange{-d, d};
    diff.colormap = render::Colormap::blue_red;
    fields.push_back(std::move(diff));
    // The legend in the fourth pane: a label each (no field), one line apart.
    const std::string legend[] = {"A: " + ab.a_label,
                                  "B: " + ab.b_label,
                                  "B - A over " + ab.compared + ":",
                                  fmt::format("  relative L2 {:.3e}", ab.rel_l2),
                                  fmt::format("  max |B - A| {:.3e}", ab.max_abs),
                                  fmt::format("  blue-red -{:.3g} .. +{:.3g}", d, d)};
    for (std::size_t k = 0; k < std::size(legend); ++k) {
      render::PixelRect line = panes.sketch;
      line.y += 8 + 18.0 * static_cast<double>(k);
      fields.push_back(pane(nullptr, line, legend[k]));
    }
    for (int k = 0; k < 3; ++k)
      for (const auto& c : sim.probes())
        if (const auto uv = probe_on_view(dims, 0, c, sim.slices()))
          add_probe_marker(lines, panes.slice[static_cast<std::size_t>(k)], sim.texture(0).nx(), sim.texture(0).ny(), {},
                           (*uv)[0], (*uv)[1]);
  } else {
    for (int v = 0; v < 3; ++v) {
      const auto& t = sim.texture(v);
      fields.push_back(pane(&t, panes.slice[static_cast<std::size_t>(v)], slice_label(v, sim.slices()[static_cast<std::size_t>(v)]),
                            kSliceRgba[static_cast<std::size_t>(v)]));
      fields.back().medium = sim.overlay_texture(v);  // null unless the medium overlay is on
      fields.back().medium_range = sim.overlay_range();
      for (const auto& c : sim.probes())
        if (const auto uv = probe_on_view(dims, v, c, sim.slices()))
          add_probe_marker(lines, panes.slice[static_cast<std::size_t>(v)], t.nx(), t.ny(), {}, (*uv)[0], (*uv)[1]);
    }
    const auto& n = sim.config().size;
    render::PixelRect sketch_area = panes.sketch;
    if (const render::FieldTexture* seismogram = sim.seismogram_texture()) {
      // The fourth pane: the seismogram (time down) on the left, the sketch on the right.
      render::PixelRect left = panes.sketch;
      left.width = panes.sketch.width * 0.68;
      sketch_area.x = left.x + left.width;
      sketch_area.width = panes.sketch.width - left.width;
      fields.push_back(pane(seismogram, left, fmt::format("seismogram x{:.3g} (time down)", sim.seismogram_gain()),
                            {235, 235, 235, 255}));
    }
    const std::vector<render::OverlayLine> sketch = slice_sketch(sketch_area, n[0], n[1], n[2], sim.slices());
    lines.insert(lines.begin(), sketch.begin(), sketch.end());
  }
  if (renderer_) renderer_->draw_panes(fields, layout, style, lines);
}

std::array<int, 3> cell_of_view(int dims, int view, double u, double v, const std::array<int, 3>& slices,
                                const std::array<int, 3>& size) {
  const int iu = static_cast<int>(std::floor(u)), iv = static_cast<int>(std::floor(v));
  std::array<int, 3> c{iu, iv, 0};
  if (dims == 3) {
    if (view == 0) c = {iu, iv, slices[0]};
    else if (view == 1) c = {iu, slices[1], iv};
    else c = {slices[2], iu, iv};
  }
  for (int a = 0; a < 3; ++a) c[a] = std::clamp(c[a], 0, std::max(0, (dims == 2 && a == 2 ? 1 : size[a]) - 1));
  return c;
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
  // Oblique projection: x to the right, y up, z receding up and to the right at 30
  // degrees at half length; then pixels (y down), scaled to fit 80% of the area.
  const glm::dvec2 z_axis = 0.5 * glm::dvec2(std::cos(glm::radians(30.0)), std::sin(glm::radians(30.0)));
  const glm::dmat3x2 oblique(glm::dvec2(1, 0), glm::dvec2(0, 1), z_axis);  // columns: images of x, y, z
  const glm::dvec3 box(nx, ny, nz);
  const glm::dvec2 extent = oblique * box;
  const double scale = 0.8 * std::min(area.width / extent.x, area.height / extent.y);
  const glm::dvec2 origin(area.x + (area.width - extent.x * scale) / 2,
                          area.y + (area.height + extent.y * scale) / 2);  // pixel of (0, 0, 0): bottom left
  auto project = [&](const glm::dvec3& p) {
    const glm::dvec2 q = oblique * p;
    return glm::vec2(origin.x + q.x * scale, origin.y - q.y * scale);
  };
  std::vector<render::OverlayLine> lines;
  auto edge = [&](const glm::dvec3& p, const glm::dvec3& q, std::array<std::uint8_t, 4> rgba, float w) {
    const glm::vec2 a = project(p), b = project(q);
    lines.push_back({a.x, a.y, b.x, b.y, rgba, w});
  };
  // The quad through `corner` spanned by the box's extents along axes u and v.
  auto quad = [&](const glm::dvec3& corner, int u, int v, std::array<std::uint8_t, 4> rgba, float w) {
    glm::dvec3 du(0), dv(0);
    du[u] = box[u];
    dv[v] = box[v];
    const glm::dvec3 c[4] = {corner, corner + du, corner + du + dv, corner + dv};
    for (int e = 0; e < 4; ++e) edge(c[e], c[(e + 1) % 4], rgba, w);
  };
  const std::array<std::uint8_t, 4> grey{200, 200, 200, 255};
  quad(glm::dvec3(0), 0, 1, grey, 1.0f);
  quad(glm::dvec3(0, 0, nz), 0, 1, grey, 1.0f);
  for (const glm::dvec3 p : {glm::dvec3(0), glm::dvec3(nx, 0, 0), glm::dvec3(nx, ny, 0), glm::dvec3(0, ny, 0)})
    edge(p, p + glm::dvec3(0, 0, nz), grey, 1.0f);
  // The slices through the centres of their cells: XY at z, XZ at y, YZ at x.
  quad(glm::dvec3(0, 0, slices[0] + 0.5), 0, 1, kSliceRgba[0], 2.0f);
  quad(glm::dvec3(0, slices[1] + 0.5, 0), 0, 2, kSliceRgba[1], 2.0f);
  quad(glm::dvec3(slices[2] + 0.5, 0, 0), 1, 2, kSliceRgba[2], 2.0f);
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

void follow_medium_overlay(LiveSimulation& sim, const ViewSettings& view) {
  sim.set_overlay_quantity(view.style.medium_overlay ? sim.model().views.overlay_quantity : std::string());
}

void apply_actions(const PanelActions& a, LiveSimulation& sim, SimSettings& settings, ViewSettings& view,
                   RangeFollower& range) {
  follow_medium_overlay(sim, view);
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
  if (a.plots_visible) sim.request_diagnostics();
  if (a.seismogram_visible) sim.request_seismogram();
  if (a.remove_source >= 0) sim.remove_source(a.remove_source);
  if (a.set_receivers) sim.set_receivers(*a.set_receivers);
  if (a.export_seismogram) sim.export_seismogram("stencilscope-seismogram");
  if (a.export_plots) {
    const std::string path = "stencilscope-diagnostics.csv", probes = "stencilscope-probes.csv";
    std::ofstream f(path);
    f << sim.diagnostics_csv();
    std::string note = f.flush() ? "wrote " + path : "could not write " + path;
    if (!sim.probes().empty()) {
      std::ofstream g(probes);
      g << sim.probes_csv();
      note += g.flush() ? " and " + probes : "; could not write " + probes;
    }
    sim.set_note(note);
  }
  if (a.clear_probes) settings.probes.clear();
  if (a.remove_probe >= 0 && a.remove_probe < static_cast<int>(settings.probes.size()))
    settings.probes.erase(settings.probes.begin() + a.remove_probe);
}

}  // namespace ss::app
