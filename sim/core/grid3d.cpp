// The 3D layout and the host boundary step.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/ghost3d.hpp"

namespace ss {

Grid3D Grid3D::make(int nx, int ny, int nz) {
  if (nx < kMinSide || ny < kMinSide || nz < kMinSide)
    throw Error(fmt::format("grid {}x{}x{} is too small: each side needs at least {} cells", nx, ny, nz, kMinSide));
  return make_box(nx, ny, nz);
}

Grid3D Grid3D::make_box(int nx, int ny, int nz) {
  constexpr int kMaxSide = 1 << 24;
  if (nx < 1 || ny < 1 || nz < 1) throw Error(fmt::format("box {}x{}x{} is empty", nx, ny, nz));
  if (nx > kMaxSide || ny > kMaxSide || nz > kMaxSide) throw Error(fmt::format("grid {}x{}x{} is too large", nx, ny, nz));
  Grid3D g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.x0 = kRowAlign;
  g.pitch = (g.x0 + nx + 2 * kGhost + kRowAlign - 1) / kRowAlign * kRowAlign;
  // Element offsets are std::size_t; block counts and ghost-cell counts are 64-bit.
  const double elements = static_cast<double>(g.pitch) * (ny + 2.0 * kGhost) * (nz + 2.0 * kGhost);
  if (elements > 0.5 * static_cast<double>(std::numeric_limits<long long>::max()))
    throw Error(fmt::format("grid {}x{}x{} is too large", nx, ny, nz));
  return g;
}

template <typename T>
void fill_ghosts3d_host(T* f, const Grid3D& g, const GhostRule3D<T>& r) {
  const long long n = ghost_face_cells(g);
  // Faces are written after their images are read: no face cell is another's image.
#pragma omp parallel for schedule(static) if (n > 65536)
  for (long long e = 0; e < n; ++e) write_ghost_face_cell(f, g, e, r);
}

template <typename T>
void fill_box_ghosts3d_host(T* f, const Grid3D& g, const std::array<int, 3>& lo,
                            const std::array<std::array<bool, 2>, 3>& faces, int width, const GhostRule3D<T>& r) {
  const bool wrap = r.boundary == Boundary::periodic;
  const std::array<int, 3> n{g.nx, g.ny, g.nz};
  // The interior cell a ghost index g (< 0 or >= n) takes its value from, as ghost_of's inverse.
  auto image = [wrap](int gi, int side) {
    if (wrap) return gi < 0 ? gi + side : gi - side;
    return gi < 0 ? -1 - gi : 2 * side - 1 - gi;
  };
  for (int axis = 0; axis < 3; ++axis)
    for (int end = 0; end < 2; ++end) {
      if (!faces[axis][end]) continue;
      // The face's cells: `width` layers along `axis`, the interior along the other two.
      std::array<int, 3> from{0, 0, 0}, to = n;
      from[axis] = end == 0 ? -width : n[axis];
      to[axis] = end == 0 ? 0 : n[axis] + width;
#pragma omp parallel for schedule(static) if (static_cast<long long>(to[2] - from[2]) * (to[1] - from[1]) * (to[0] - from[0]) > 65536)
      for (int k = from[2]; k < to[2]; ++k)
        for (int j = from[1]; j < to[1]; ++j)
          for (int i = from[0]; i < to[0]; ++i) {
            std::array<int, 3> src{i, j, k};
            src[axis] = image(src[axis], n[axis]);
            f[g.index(i, j, k)] = ghost_value3d(r, i + lo[0], j + lo[1], k + lo[2], f[g.index(src[0], src[1], src[2])]);
          }
    }
}

template <typename T>
std::vector<T> extract_interior3d(const std::vector<T>& field, const Grid3D& g) {
  std::vector<T> out(g.points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      std::copy_n(field.begin() + g.index(0, j, k), g.nx,
                  out.begin() + (static_cast<std::size_t>(k) * g.ny + j) * g.nx);
  return out;
}

template void fill_ghosts3d_host<float>(float*, const Grid3D&, const GhostRule3D<float>&);
template void fill_ghosts3d_host<double>(double*, const Grid3D&, const GhostRule3D<double>&);
template void fill_box_ghosts3d_host<float>(float*, const Grid3D&, const std::array<int, 3>&,
                                            const std::array<std::array<bool, 2>, 3>&, int, const GhostRule3D<float>&);
template void fill_box_ghosts3d_host<double>(double*, const Grid3D&, const std::array<int, 3>&,
                                             const std::array<std::array<bool, 2>, 3>&, int, const GhostRule3D<double>&);
template std::vector<float> extract_interior3d<float>(const std::vector<float>&, const Grid3D&);
template std::vector<double> extract_interior3d<double>(const std::vector<double>&, const Grid3D&);

}  // namespace ss
