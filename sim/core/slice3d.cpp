#include "sim/core/slice3d.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/core/error.hpp"

namespace ss {

std::string_view to_string(SliceAxis a) {
  switch (a) {
    case SliceAxis::xy: return "XY";
    case SliceAxis::xz: return "XZ";
    case SliceAxis::yz: return "YZ";
  }
  return "?";
}

int slice_depth(const Grid3D& g, SliceAxis axis) {
  switch (axis) {
    case SliceAxis::xy: return g.nz;
    case SliceAxis::xz: return g.ny;
    case SliceAxis::yz: return g.nx;
  }
  return 0;
}

SliceView slice_view(const Grid3D& g, SliceAxis axis, int position) {
  const int depth = slice_depth(g, axis);
  if (position < 0 || position >= depth)
    throw Error("slice " + std::string(to_string(axis)) + " at " + std::to_string(position) + " is outside 0.." +
                std::to_string(depth - 1));
  SliceView v;
  switch (axis) {
    case SliceAxis::xy:
      v = {g.nx, g.ny, g.index(0, 0, position), 1, static_cast<std::size_t>(g.pitch)};
      break;
    case SliceAxis::xz:
      v = {g.nx, g.nz, g.index(0, position, 0), 1, g.plane()};
      break;
    case SliceAxis::yz:
      v = {g.ny, g.nz, g.index(position, 0, 0), static_cast<std::size_t>(g.pitch), g.plane()};
      break;
  }
  return v;
}

template <typename T>
void extract_slice(const std::vector<T>& field, const Grid3D& g, SliceAxis axis, int position, std::vector<T>& out) {
  if (field.size() != g.elements()) throw Error("extract_slice: the field does not have the grid's size");
  const SliceView s = slice_view(g, axis, position);
  out.resize(static_cast<std::size_t>(s.nu) * s.nv);
  for (int v = 0; v < s.nv; ++v)
    for (int u = 0; u < s.nu; ++u) out[static_cast<std::size_t>(v) * s.nu + u] = field[s.at(u, v)];
}

template void extract_slice<float>(const std::vector<float>&, const Grid3D&, SliceAxis, int, std::vector<float>&);
template void extract_slice<double>(const std::vector<double>&, const Grid3D&, SliceAxis, int, std::vector<double>&);

CellBox sphere_cells(const Sphere& s, const Grid3D& g) {
  CellBox b;
  const double c[3] = {s.x, s.y, s.z};
  const int n[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = std::max(0, static_cast<int>(std::floor(c[a] - s.radius)));
    b.hi[a] = std::min(n[a] - 1, static_cast<int>(std::ceil(c[a] + s.radius)));
  }
  return b;
}

std::array<double, 3> slice_to_volume(SliceAxis axis, int position, double u, double v) {
  const double w = position + 0.5;
  switch (axis) {
    case SliceAxis::xy: return {u, v, w};
    case SliceAxis::xz: return {u, w, v};
    case SliceAxis::yz: return {w, u, v};
  }
  return {u, v, w};
}

}  // namespace ss
