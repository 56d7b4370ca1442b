#include "view_pass.hpp"

#include <cstdio>

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
