#pragma once
// Axis-aligned slices of a padded 3D field, and a sphere painted into one. A slice is a
// 2D array of nu-by-nv cells, u fastest: XY at z = k (u = i, v = j), XZ at y = j
// (u = i, v = k), YZ at x = i (u = j, v = k). Its cells sit in the padded field at
// offset + u * u_stride + v * v_stride, so the host copy, the GPU gather and the
// interop texture write all read the same strided view.
#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "sim/core/grid3d.hpp"
#include "sim/core/hostdevice.hpp"

namespace ss {

/// Which plane a slice lies in; the value is also the index of its view (0, 1, 2).
enum class SliceAxis { xy = 0, xz = 1, yz = 2 };
inline constexpr std::array kAllSliceAxes = {SliceAxis::xy, SliceAxis::xz, SliceAxis::yz};
/// "XY", "XZ", "YZ".
std::string_view to_string(SliceAxis a);

/// Where a slice's cells lie in the padded field (element offsets and strides).
struct SliceView {
  int nu = 0, nv = 0;          ///< cells along the slice's two axes
  std::size_t offset = 0;      ///< element of cell (u, v) = (0, 0)
  std::size_t u_stride = 0;    ///< elements from u to u + 1
  std::size_t v_stride = 0;    ///< elements from v to v + 1
  SS_HD std::size_t at(int u, int v) const {
    return offset + static_cast<std::size_t>(u) * u_stride + static_cast<std::size_t>(v) * v_stride;
  }
};

/// The cells along the axis a slice cuts (nz for XY, ny for XZ, nx for YZ).
int slice_depth(const Grid3D& g, SliceAxis axis);
/// The strided view of the slice at `position` (0 .. slice_depth - 1); throws ss::Error
/// naming the axis and the range when the position lies outside the interior.
SliceView slice_view(const Grid3D& g, SliceAxis axis, int position);

/// Copies the slice into `out` (resized to nu * nv, u fastest).
template <typename T>
void extract_slice(const std::vector<T>& field, const Grid3D& g, SliceAxis axis, int position, std::vector<T>& out);

/// A ball painted into a 3D field: cells whose centre lies within `radius` cells of
/// (x, y, z) (cell (i, j, k) has its centre at (i + 0.5, j + 0.5, k + 0.5)) are set to `value`.
struct Sphere {
  double x = 0, y = 0, z = 0;
  double radius = 8;
  double value = 1;
};

/// True when cell (i, j, k) lies in the sphere.
SS_HD inline bool in_sphere(const Sphere& s, int i, int j, int k) {
  const double dx = i + 0.5 - s.x, dy = j + 0.5 - s.y, dz = k + 0.5 - s.z;
  return dx * dx + dy * dy + dz * dz <= s.radius * s.radius;
}

/// The interior cell box [lo, hi] (inclusive, per axis) that can hold cells of the
/// sphere; empty (some lo > hi) when it misses the grid.
struct CellBox {
  std::array<int, 3> lo{}, hi{};
  bool empty() const { return lo[0] > hi[0] || lo[1] > hi[1] || lo[2] > hi[2]; }
};
CellBox sphere_cells(const Sphere& s, const Grid3D& g);

/// The point in the volume (cell units) under slice coordinates (u, v) of the slice at
/// `position`: the centre of the cell layer the slice shows along its cut axis.
std::array<double, 3> slice_to_volume(SliceAxis axis, int position, double u, double v);

}  // namespace ss
