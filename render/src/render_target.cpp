#include "stencilscope/render/render_target.hpp"

#include <glad/gl.h>

#include "gl_util.hpp"

namespace ss::render {

RenderTarget::RenderTarget(int width, int height) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) throw GLError("render target size must be positive");
  GLuint tex = 0, fbo = 0;
  glGenTextures(1, &tex);
  color_ = GLTexture(tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenFramebuffers(1, &fbo);
  framebuffer_ = GLFramebuffer(fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  detail::check_framebuffer("creating a render target");
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  check_gl("creating a render target");
}

void RenderTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.get());
  glViewport(0, 0, width_, height_);
}

std::vector<std::uint8_t> RenderTarget::read_rgba() const {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width_) * height_ * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_.get());
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  check_gl("reading the render target");
  detail::flip_rows(pixels.data(), width_, height_, 4);
  return pixels;
}

void RenderTarget::blit_to_default(int width, int height) const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_.get());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width, height, GL_COLOR_BUFFER_BIT,
                    width == width_ && height == height_ ? GL_NEAREST : GL_LINEAR);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, width, height);
  check_gl("copying the view to the window");
}

void bind_default_framebuffer(int width, int height) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, width, height);
}

std::vector<std::uint8_t> read_default_framebuffer(int width, int height) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  check_gl("reading the window");
  detail::flip_rows(pixels.data(), width, height, 4);
  for (std::size_t k = 3; k < pixels.size(); k += 4) pixels[k] = 255;  // the window's alpha means nothing
  return pixels;
}

}  // namespace ss::render
