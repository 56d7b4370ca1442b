#pragma once
// The side bar: every panel in one column at the left of the window, the views right of it.
// Header-only so the screenshot tests can lay out a frame exactly as the app does.
#include "stencilscope/render/view_layout.hpp"

namespace ss::app {

/// The side bar's width before the person drags its right edge, in ImGui units
/// (framebuffer pixels at a content scale of 1).
inline constexpr float kSideBarWidth = 380;
/// The narrowest the side bar can be dragged to; the widest is kSideBarMaxFraction of the window.
inline constexpr float kSideBarMinWidth = 260;
inline constexpr float kSideBarMaxFraction = 0.6f;

/// The views' layout in a width-by-height frame whose left `side_bar_px` pixels the side
/// bar covers (0: the UI is hidden or not drawn, the views take the whole frame).
inline render::FrameLayout view_layout(int width, int height, bool with_colorbar, double side_bar_px) {
  return render::frame_layout(width, height, with_colorbar, side_bar_px);
}

}  // namespace ss::app
