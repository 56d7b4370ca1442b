#pragma once
// A small RGBA8 texture filled from host memory: pictures the panels draw with ImGui::Image
// (the seismogram). Move-only, like every GL handle here.
#include <cstdint>
#include <vector>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

class ImageTexture {
 public:
  /// An empty texture (no GL object until the first upload).
  ImageTexture() = default;
  /// Replaces the picture: width x height RGBA pixels, row 0 at the top; reallocates when
  /// the size changes. Throws GLError.
  void upload(int width, int height, const std::vector<std::uint8_t>& rgba);
  int width() const { return width_; }
  int height() const { return height_; }
  /// The GL texture name (0 before the first upload), for ImGui::Image.
  unsigned gl_name() const { return texture_.get(); }

 private:
  GLTexture texture_;
  int width_ = 0, height_ = 0;
};

}  // namespace ss::render
