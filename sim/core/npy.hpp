#pragma once
// NumPy's .npy format (version 1.0) for float32 arrays: what `stencilscope export`
// writes, so a field or a slice opens with numpy.load. C order: the last axis varies
// fastest, so an interior stored x fastest has the shape (ny, nx) or (nz, ny, nx).
#include <cstddef>
#include <string>
#include <vector>

namespace ss {

/// Writes `values` (little-endian float32, C order) with `shape` to `path`; throws
/// ss::Error naming the path when the file cannot be written or the sizes disagree.
void write_npy(const std::string& path, const float* values, const std::vector<std::size_t>& shape);

/// A float32 .npy file read back: its shape and values (C order).
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<float> values;
};

/// Reads a version 1.0 little-endian float32 C-order .npy file; throws ss::Error naming
/// the path and what is wrong for anything else.
NpyArray read_npy(const std::string& path);

/// Reads a float32 (or float64, rounded to float32: numpy's default) .npy file holding one
/// value per node of an nx-by-ny-by-nz grid, shape (nz, ny, nx) (x fastest); throws
/// ss::Error naming the path, the shape found and the shape needed.
std::vector<float> read_npy_volume(const std::string& path, int nx, int ny, int nz);

}  // namespace ss
