#pragma once
// The 3D boundary step on the GPU (one thread per ghost face cell, the same SS_HD
// value rule as the host step) and a NaN fill for poisoning buffers.
#include <algorithm>

#include "cuda_check.cuh"
#include "stencilscope/ghost3d.hpp"

namespace ss {

template <typename T>
__global__ void fill_ghosts3d_kernel(T* f, Grid3D g, const GhostRule3D<T>* rule_ptr) {
  const GhostRule3D<T>& rule = *rule_ptr;  // read in place: a copy would go to the stack
  const long long n = ghost_face_cells(g);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_ghost_face_cell(f, g, e, rule);
}

// The same boundary step laid out by lines, with 32-bit index arithmetic: the
// flat kernel above spends its time in 64-bit divisions (~60 us of a 600 us
// heat3d step at 512^3 on an H100). Blocks [0, nbx) take the x faces (256 threads:
// 32 rows x 2 kGhost cells), the next nby the y faces and the rest the z faces
// (256 consecutive i of one ghost line each). Needs ny nz 2 kGhost < 2^32.
template <typename T>
__global__ void __launch_bounds__(256)
    fill_ghost_lines3d_kernel(T* f, Grid3D g, const GhostRule3D<T>* rule_ptr, unsigned nbx, unsigned nby, unsigned nbz) {
  const GhostRule3D<T>& r = *rule_ptr;  // read in place: a copy would go to the stack
  constexpr unsigned G2 = 2 * kGhost;
  const bool wrap = r.boundary == Boundary::periodic;
  const unsigned xb = (static_cast<unsigned>(g.nx) + 255) / 256;  // 256-wide chunks of a y or z line
  for (unsigned b = blockIdx.x; b < nbx + nby + nbz; b += gridDim.x) {
    if (b < nbx) {
      const unsigned t = b * 256 + threadIdx.x, row = t / G2, m = t % G2;
      if (row >= static_cast<unsigned>(g.ny) * static_cast<unsigned>(g.nz)) continue;
      const int j = static_cast<int>(row % g.ny), k = static_cast<int>(row / g.ny);
      const int i = m < kGhost ? static_cast<int>(m) : g.nx - static_cast<int>(G2) + static_cast<int>(m);
      const int gi = ghost_of(i, g.nx, wrap);
      f[g.index(gi, j, k)] = ghost_value3d(r, gi, j, k, f[g.index(i, j, k)]);
    } else if (b < nbx + nby) {
      const unsigned line = (b - nbx) / xb, chunk = (b - nbx) % xb;
      const int i = static_cast<int>(chunk * 256 + threadIdx.x);
      if (i >= g.nx) continue;
      const unsigned m = line % G2;
      const int k = static_cast<int>(line / G2);
      const int j = m < kGhost ? static_cast<int>(m) : g.ny - static_cast<int>(G2) + static_cast<int>(m);
      const int gj = ghost_of(j, g.ny, wrap);
      f[g.index(i, gj, k)] = ghost_value3d(r, i, gj, k, f[g.index(i, j, k)]);
    } else {
      const unsigned line = (b - nbx - nby) / xb, chunk = (b - nbx - nby) % xb;
      const int i = static_cast<int>(chunk * 256 + threadIdx.x);
      if (i >= g.nx) continue;
      const int j = static_cast<int>(line % g.ny);
      const unsigned m = line / g.ny;
      const int k = m < kGhost ? static_cast<int>(m) : g.nz - static_cast<int>(G2) + static_cast<int>(m);
      const int gk = ghost_of(k, g.nz, wrap);
      f[g.index(i, j, gk)] = ghost_value3d(r, i, j, gk, f[g.index(i, j, k)]);
    }
  }
}

/// Enqueues the boundary step for field f; `rule` points to device memory.
template <typename T>
inline void launch_fill_ghosts3d(T* f, const Grid3D& g, const GhostRule3D<T>* rule, cudaStream_t s) {
  constexpr long long G2 = 2 * kGhost;
  const long long xb = (g.nx + 255) / 256;
  const long long nbx = (G2 * g.ny * g.nz + 255) / 256, nby = xb * G2 * g.nz, nbz = xb * G2 * g.ny;
  if (G2 * g.ny * g.nz < (1LL << 32) && nbx + nby + nbz < (1LL << 32)) {
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(nbx + nby + nbz, 1LL << 20));
    fill_ghost_lines3d_kernel<T><<<blocks, 256, 0, s>>>(f, g, rule, static_cast<unsigned>(nbx),
                                                         static_cast<unsigned>(nby), static_cast<unsigned>(nbz));
    SS_CUDA_LAUNCH_CHECK("fill_ghost_lines3d_kernel");
    return;
  }
  const unsigned blocks = std::min<unsigned>(blocks_for(ghost_face_cells(g), 256), 8192);
  fill_ghosts3d_kernel<T><<<blocks, 256, 0, s>>>(f, g, rule);
  SS_CUDA_LAUNCH_CHECK("fill_ghosts3d_kernel");
}

template <typename T>
__global__ void fill_value3d_kernel(T* p, std::size_t n, T v) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[k] = v;
}

/// Enqueues p[0..n) = v.
template <typename T>
inline void launch_fill_value3d(T* p, std::size_t n, T v, cudaStream_t s) {
  fill_value3d_kernel<T><<<2048, 256, 0, s>>>(p, n, v);
  SS_CUDA_LAUNCH_CHECK("fill_value3d_kernel");
}

}  // namespace ss
