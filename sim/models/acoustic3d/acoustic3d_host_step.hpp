#pragma once
// The cpu variant's interior update on the host, shared by the whole grid (HostAcoustic3D)
// and by one rank's box (acoustic3d_box.cpp), so both sum in the same order.
#include <cstddef>

#include "sim/core/grid3d.hpp"
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

/// out = acoustic3d_point at every interior node of `g` (p, pp, c2 and out in g's padded
/// layout; p's ghosts filled), the sponge's damping of node (i, j, k) being
/// (tx[i] ty[j]) tz[k]. OpenMP over z.
template <typename T, int R>
void acoustic3d_interior_host(const Grid3D& g, const T* p, const T* pp, const T* c2, const T* tx, const T* ty,
                              const T* tz, T* out) {
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const std::size_t e = g.index(i, j, k);
        const T* c = p + e;
        T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
        for (int m = 0; m <= 2 * R; ++m) {
          row[m] = c[m - R];
          col[m] = c[(m - R) * pitch];
          dep[m] = c[(m - R) * plane];
        }
        const T damp = (tx[i] * ty[j]) * tz[k];
        out[e] = acoustic3d_point<T, R>(row, col, dep, pp[e], c2[e], damp);
      }
}

}  // namespace ss
