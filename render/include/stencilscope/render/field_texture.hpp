#pragma once
// The texture that holds the field on the GL side: one R32F texel per interior cell,
// row 0 = cell row j = 0. Written either from host memory (glTexSubImage2D) or by CUDA
// through FieldInterop.
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

  /// Reads the texture back (nx*ny floats, row 0 first): tests compare it with the field.
  std::vector<float> download() const;

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  /// The GL texture name, for FieldInterop and the renderer.
  unsigned gl_name() const { return texture_.get(); }

 private:
  GLTexture texture_;
  int nx_ = 0, ny_ = 0;
};

}  // namespace ss::render
