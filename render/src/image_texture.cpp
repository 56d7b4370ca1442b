#include "stencilscope/render/image_texture.hpp"

#include <string>

#include <glad/gl.h>

namespace ss::render {

void ImageTexture::upload(int width, int height, const std::vector<std::uint8_t>& rgba) {
  if (width < 1 || height < 1 || rgba.size() != static_cast<std::size_t>(width) * height * 4)
    throw GLError("an image of " + std::to_string(width) + " x " + std::to_string(height) + " pixels needs " +
                  std::to_string(static_cast<std::size_t>(width) * height * 4) + " bytes, got " +
                  std::to_string(rgba.size()));
  if (!texture_.get() || width != width_ || height != height_) {
    GLuint name = 0;
    glGenTextures(1, &name);
    texture_ = GLTexture(name);
    glBindTexture(GL_TEXTURE_2D, name);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    width_ = width;
    height_ = height;
  }
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("uploading an image texture");
}

}  // namespace ss::render
