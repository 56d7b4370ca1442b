#include "stencilscope/render/field_texture.hpp"

#include <glad/gl.h>

namespace ss::render {

FieldTexture::FieldTexture(int nx, int ny) : nx_(nx), ny_(ny) {
  GLuint name = 0;
  glGenTextures(1, &name);
  texture_ = GLTexture(name);
  glBindTexture(GL_TEXTURE_2D, name);
  // R32F: what cudaGraphicsGLRegisterImage can write through a surface object.
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, nx, ny, 0, GL_RED, GL_FLOAT, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("creating the field texture");
}

void FieldTexture::upload_host(const float* first_cell, std::size_t row_pitch) {
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(row_pitch));
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, nx_, ny_, GL_RED, GL_FLOAT, first_cell);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("uploading the field (glTexSubImage2D)");
}

void FieldTexture::show_buffer(unsigned buffer_texture, unsigned buffer) {
  shown_texture_ = buffer_texture;
  shown_buffer_ = buffer;
}

std::vector<float> FieldTexture::download() const {
  std::vector<float> out(static_cast<std::size_t>(nx_) * ny_);
  if (shown_buffer_) {  // through a GL-owned copy on the GPU: what GL's reads of the buffer see
    const auto bytes = static_cast<GLsizeiptr>(out.size() * sizeof(float));
    GLuint copy = 0;
    glGenBuffers(1, &copy);
    const GLBuffer owned(copy);
    glBindBuffer(GL_COPY_WRITE_BUFFER, copy);
    glBufferData(GL_COPY_WRITE_BUFFER, bytes, nullptr, GL_STREAM_READ);
    glBindBuffer(GL_COPY_READ_BUFFER, shown_buffer_);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, bytes);
    glGetBufferSubData(GL_COPY_WRITE_BUFFER, 0, bytes, out.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    check_gl("reading the shown buffer back");
    return out;
  }
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, out.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("reading the field texture back");
  return out;
}

}  // namespace ss::render
