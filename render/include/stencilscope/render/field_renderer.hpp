#pragma once
// Draws a FieldTexture through a colormap (fragment shader), with zoom, pan, sampling
// and a colorbar with value labels, into whatever framebuffer is bound.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "stencilscope/render/colormap.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/view_layout.hpp"

namespace ss::render {

enum class Sampling { nearest, linear };
std::string_view to_string(Sampling s);
/// "nearest" or "linear"; throws ss::Error otherwise.
Sampling parse_sampling(std::string_view s);

/// Everything about how the field looks; the app owns it, the UI edits it.
struct ViewStyle {
  Colormap colormap = Colormap::viridis;
  ValueRange range;  ///< values drawn at the two ends of the colormap
  Sampling sampling = Sampling::nearest;
  ViewTransform transform;
  bool colorbar = true;
  /// Panes that carry a medium (FieldPane::medium) draw it as a translucent grey layer
  /// over the field, this opaque (0..1), when medium_overlay is set.
  bool medium_overlay = false;
  float medium_opacity = 0.4f;
};

/// RGB of the area around the field, 0..255 (tests look for it).
inline constexpr unsigned char kBackgroundRgb[3] = {38, 38, 43};

/// One field drawn, fitted, into its own rectangle of the frame (3D slices: a pane each).
struct FieldPane {
  const FieldTexture* field = nullptr;
  PixelRect area;      ///< the field is fitted into it and clipped to it
  std::string label;   ///< drawn at the area's top-left corner (may be empty)
  std::array<std::uint8_t, 4> label_rgba{235, 235, 235, 255};
  std::optional<ValueRange> range;    ///< this pane's own range (a difference field); else the style's
  std::optional<Colormap> colormap;   ///< this pane's own colormap; else the style's
  /// A second field of the same size drawn over the first as a translucent grey map
  /// (medium_range lo black, hi white) when the style's medium_overlay is set; null: none.
  const FieldTexture* medium = nullptr;
  ValueRange medium_range{0, 1};
};

/// A straight line in pixels (top-left origin): sketches drawn over the frame.
struct OverlayLine {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::array<std::uint8_t, 4> rgba{255, 255, 255, 255};
  float width = 1.5f;  ///< pixels
};

class FieldRenderer {
 public:
  /// Compiles and links the embedded shaders and uploads the colormap tables. Throws
  /// GLError carrying the compile or link log (which is also printed to stderr).
  FieldRenderer();
  ~FieldRenderer();
  FieldRenderer(FieldRenderer&&) noexcept;
  FieldRenderer& operator=(FieldRenderer&&) noexcept;
  FieldRenderer(const FieldRenderer&) = delete;
  FieldRenderer& operator=(const FieldRenderer&) = delete;

  /// Clears the bound framebuffer (layout.width x layout.height) and draws the field and,
  /// when style.colorbar is set, the colorbar. Leaves blending and scissor disabled.
  /// `lines` are drawn on top (probe markers).
  void draw(const FieldTexture& field, const FrameLayout& layout, const ViewStyle& style,
            std::span<const OverlayLine> lines = {});
  /// As draw, but each pane's field fitted into its own area (style.transform is not
  /// used), then the lines on top. The colorbar (when set) shows style.range; a pane with
  /// its own range or colormap is drawn with them.
  void draw_panes(std::span<const FieldPane> panes, const FrameLayout& layout, const ViewStyle& style,
                  std::span<const OverlayLine> lines);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::render
