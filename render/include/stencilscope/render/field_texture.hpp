#pragma once
// The texture that holds the field on the GL side: one R32F texel per interior cell,
// row 0 = cell row j = 0. Written either from host memory (glTexSubImage2D) or by CUDA
// through FieldInterop. It may instead show values that live elsewhere: an R32F buffer
// texture of nx * ny values, rows nx apart (a staging slot CUDA writes in place, the
// shared path of interop.hpp), which it does not own. The renderer reads both stores the
// same way (texelFetch, its own filter), so a field draws the same pixels from either.
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

  /// Reads the values shown back (nx*ny floats, row 0 first): tests compare them with the field.
  std::vector<float> download() const;

  /// From now on the values shown are those of `buffer_texture` (an R32F buffer texture
  /// over `buffer`, nx * ny floats, rows nx apart), which the caller keeps alive while
  /// shown. Any write into the texture's own store (upload_host, FieldInterop) must be
  /// followed by show_own().
  void show_buffer(unsigned buffer_texture, unsigned buffer);
  /// Back to the texture's own store.
  void show_own() { shown_texture_ = shown_buffer_ = 0; }
  /// The buffer texture shown (0: the own store).
  unsigned shown_buffer_texture() const { return shown_texture_; }

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  /// The GL texture name, for FieldInterop and the renderer.
  unsigned gl_name() const { return texture_.get(); }

 private:
  GLTexture texture_;
  unsigned shown_texture_ = 0, shown_buffer_ = 0;  // show_buffer's, not owned
  int nx_ = 0, ny_ = 0;
};

}  // namespace ss::render
