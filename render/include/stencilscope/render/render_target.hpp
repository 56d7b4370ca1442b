#pragma once
// Off-screen framebuffers and reading pixels back (screenshots, video frames, headless).
#include <cstdint>
#include <vector>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

/// An RGBA8 framebuffer of a fixed size.
class RenderTarget {
 public:
  /// Throws GLError when the framebuffer is incomplete.
  RenderTarget(int width, int height);

  /// Binds it for drawing and sets the viewport to all of it.
  void bind() const;
  /// Its pixels, RGBA, top row first (as a PNG stores them).
  std::vector<std::uint8_t> read_rgba() const;
  /// Copies it to the window's back buffer of width x height (scaled when the sizes differ).
  void blit_to_default(int width, int height) const;

  int width() const { return width_; }
  int height() const { return height_; }

 private:
  GLTexture color_;
  GLFramebuffer framebuffer_;
  int width_ = 0, height_ = 0;
};

/// Binds the window's framebuffer for drawing with a width x height viewport.
void bind_default_framebuffer(int width, int height);
/// The window's back buffer, RGBA, top row first (call before swapping buffers).
std::vector<std::uint8_t> read_default_framebuffer(int width, int height);

}  // namespace ss::render
