#pragma once
// The GL side of a field view: one R32F value per interior cell, row 0 = cell row j = 0.
// Written either from host memory or by CUDA through FieldInterop. Its values live in
// one of two stores:
// - a 2D texture (the default; what the map path writes through a surface object);
// - a buffer of nx * ny floats, rows nx apart, read by the renderer as a buffer texture
//   (the external path: memory CUDA writes in place, with no copy on the GL side).
// The renderer reads both the same way (texelFetch at the texel the fragment falls in),
// so a field looks the same, bit for bit, whichever store holds it.
#include <cstddef>
#include <vector>

#include "stencilscope/render/gl.hpp"

namespace ss::render {

class FieldTexture {
 public:
  /// An nx-by-ny R32F texture; contents are undefined until the first upload. Throws GLError.
  FieldTexture(int nx, int ny);

  /// Uploads nx*ny floats from host memory: `first_cell` is cell (0, 0), rows are
  /// `row_pitch` floats apart (a padded field uploads without an extra copy).
  void upload_host(const float* first_cell, std::size_t row_pitch);

  /// Reads the values back (nx*ny floats, row 0 first): tests compare them with the field.
  std::vector<float> download() const;

  /// From now on the values live in `buffer` (at least nx * ny floats, rows nx apart),
  /// which the texture owns, with `memory` (the memory object the buffer's storage was
  /// made from, or none). Throws GLError where nx * ny exceeds GL_MAX_TEXTURE_BUFFER_SIZE.
  void use_buffer(GLBuffer buffer, GLMemoryObject memory = {});
  /// use_buffer with a buffer of `floats` values that GL allocates itself (glBufferData):
  /// the store without CUDA, which the tests draw from.
  void use_new_buffer(std::size_t floats);
  /// Back to the 2D texture store (its contents are whatever it held before use_buffer).
  void use_texture();
  /// The largest field (nx * ny) a buffer store can hold in this context.
  static long long max_buffer_texels();

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  /// The GL texture name, for FieldInterop's map path (the 2D store).
  unsigned gl_name() const { return texture_.get(); }
  /// Whether the values live in a buffer (use_buffer), and its names: the buffer and the
  /// R32F buffer texture over it, for FieldInterop and the renderer.
  bool in_buffer() const { return buffer_texture_.get() != 0; }
  unsigned buffer_name() const { return buffer_.get(); }
  unsigned buffer_texture_name() const { return buffer_texture_.get(); }

 private:
  GLTexture texture_;
  GLMemoryObject memory_;  // declared before the buffer: the buffer goes first
  GLBuffer buffer_;
  GLTexture buffer_texture_;
  int nx_ = 0, ny_ = 0;
};

}  // namespace ss::render
