#include "stencilscope/render/field_texture.hpp"

#include <glad/gl.h>

#include <string>

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

long long FieldTexture::max_buffer_texels() {
  GLint texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
  return texels;
}

void FieldTexture::use_buffer(GLBuffer buffer, GLMemoryObject memory) {
  // The buffer texture spans the whole buffer (glTexBuffer, GL 3.1), which may be longer
  // than the field (CUDA's allocation granularity): its texels are what must fit.
  GLint64 bytes = 0;
  glBindBuffer(GL_TEXTURE_BUFFER, buffer.get());
  glGetBufferParameteri64v(GL_TEXTURE_BUFFER, GL_BUFFER_SIZE, &bytes);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  const long long texels = static_cast<long long>(bytes) / static_cast<long long>(sizeof(float));
  if (texels < static_cast<long long>(nx_) * ny_)
    throw GLError("the field's buffer holds " + std::to_string(texels) + " values, fewer than " + std::to_string(nx_) +
                  " x " + std::to_string(ny_));
  if (texels > max_buffer_texels())
    throw GLError("a " + std::to_string(nx_) + " x " + std::to_string(ny_) + " field exceeds GL_MAX_TEXTURE_BUFFER_SIZE (" +
                  std::to_string(max_buffer_texels()) + " texels)");
  GLuint name = 0;
  glGenTextures(1, &name);
  GLTexture view(name);
  glBindTexture(GL_TEXTURE_BUFFER, name);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, buffer.get());
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  check_gl("making the field's buffer texture");
  buffer_texture_ = std::move(view);
  buffer_ = std::move(buffer);
  memory_ = std::move(memory);
}

void FieldTexture::use_new_buffer(std::size_t floats) {
  GLuint name = 0;
  glGenBuffers(1, &name);
  GLBuffer buffer(name);
  glBindBuffer(GL_TEXTURE_BUFFER, name);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(floats * sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  check_gl("allocating a field buffer");
  use_buffer(std::move(buffer));
}

void FieldTexture::use_texture() {
  buffer_texture_ = GLTexture();
  buffer_ = GLBuffer();
  memory_ = GLMemoryObject();
}

void FieldTexture::upload_host(const float* first_cell, std::size_t row_pitch) {
  if (in_buffer()) {
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_.get());
    const auto row_bytes = static_cast<GLsizeiptr>(nx_ * sizeof(float));
    if (row_pitch == static_cast<std::size_t>(nx_)) {
      glBufferSubData(GL_COPY_WRITE_BUFFER, 0, row_bytes * ny_, first_cell);
    } else {
      for (int j = 0; j < ny_; ++j)
        glBufferSubData(GL_COPY_WRITE_BUFFER, row_bytes * j, row_bytes, first_cell + static_cast<std::size_t>(j) * row_pitch);
    }
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    check_gl("uploading the field (glBufferSubData)");
    return;
  }
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, static_cast<GLint>(row_pitch));
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, nx_, ny_, GL_RED, GL_FLOAT, first_cell);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("uploading the field (glTexSubImage2D)");
}

std::vector<float> FieldTexture::download() const {
  std::vector<float> out(static_cast<std::size_t>(nx_) * ny_);
  if (in_buffer()) {
    // Through a copy on the GPU into a buffer of GL's own: the copy is ordered after the
    // semaphore waits GL has queued (CUDA's writes into shared memory), which a direct
    // read of the shared buffer is not (NVIDIA's driver reads it at once: session 19).
    const auto bytes = static_cast<GLsizeiptr>(out.size() * sizeof(float));
    GLuint name = 0;
    glGenBuffers(1, &name);
    const GLBuffer staging(name);
    glBindBuffer(GL_COPY_WRITE_BUFFER, name);
    glBufferData(GL_COPY_WRITE_BUFFER, bytes, nullptr, GL_STREAM_READ);
    glBindBuffer(GL_COPY_READ_BUFFER, buffer_.get());
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, bytes);
    glGetBufferSubData(GL_COPY_WRITE_BUFFER, 0, bytes, out.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    check_gl("reading the field buffer back");
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
