#pragma once
// The 3D boundary step on the GPU (one thread per ghost face cell, the same SS_HD
// value rule as the host step) and a NaN fill for poisoning buffers.
#include <algorithm>

#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"

namespace ss {

template <typename T>
__global__ void fill_ghosts3d_kernel(T* f, Grid3D g, const GhostRule3D<T>* rule_ptr) {
  const GhostRule3D<T>& rule = *rule_ptr;  // read in place: a copy would go to the stack
  const long long n = ghost_face_cells(g);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_ghost_face_cell(f, g, e, rule);
}

// The same boundary step laid out by lines, for the kernels' own launches: the
// flat kernel above took ~60 us per 512^3 step on an H100 (a heat3d step is
// ~500 us), latency-bound on one cell per thread with the rule's fields and
// tables reached through memory each time. Here each thread keeps the rule in
// registers and walks a line of cells: the x faces (2 kGhost cells of each row,
// rows spread over the threads), then the y faces and the z faces (ghost lines
// along x, 256 consecutive i per block). Lines are dealt to blocks round robin.
template <typename T>
struct GhostRuleRegs {
  Boundary boundary;
  T fixed_value, offset;
  int modes;
  T amplitude[kMaxModes];
  const T* tx[kMaxModes];
  const T* ty[kMaxModes];
  const T* tz[kMaxModes];

  __device__ explicit GhostRuleRegs(const GhostRule3D<T>& r)
      : boundary(r.boundary), fixed_value(r.fixed_value), offset(r.offset), modes(r.modes) {
#pragma unroll
    for (int m = 0; m < kMaxModes; ++m) {
      amplitude[m] = r.amplitude[m];
      tx[m] = r.table_x[m];
      ty[m] = r.table_y[m];
      tz[m] = r.table_z[m];
    }
  }
  // ghost_value3d with the modes unrolled (the same operations in the same order).
  __device__ __forceinline__ T value(int gi, int gj, int gk, const T* image) const {
    if (boundary == Boundary::fixed) return fixed_value;
    if (boundary != Boundary::analytic) return *image;
    T v = offset;
#pragma unroll
    for (int m = 0; m < kMaxModes; ++m)
      if (m < modes) v = fma_t(amplitude[m], (tx[m][gi + kGhost] * ty[m][gj + kGhost]) * tz[m][gk + kGhost], v);
    return v;
  }
};

template <typename T>
__global__ void __launch_bounds__(256)
    fill_ghost_lines3d_kernel(T* f, Grid3D g, const GhostRule3D<T>* rule_ptr, unsigned x_blocks, unsigned yz_lines) {
  const GhostRuleRegs<T> r(*rule_ptr);
  constexpr int G2 = 2 * kGhost;
  const bool wrap = r.boundary == Boundary::periodic;
  // x faces: x_blocks blocks' worth of (row, cell) pairs, 256 per block.
  const unsigned rows = static_cast<unsigned>(g.ny) * static_cast<unsigned>(g.nz);
  for (unsigned b = blockIdx.x; b < x_blocks; b += gridDim.x) {
    const unsigned t = b * 256 + threadIdx.x, row = t / G2, m = t % G2;
    if (row >= rows) break;
    const int j = static_cast<int>(row % g.ny), k = static_cast<int>(row / g.ny);
    const int i = m < kGhost ? static_cast<int>(m) : g.nx - G2 + static_cast<int>(m);
    const int gi = ghost_of(i, g.nx, wrap);
    f[g.index(gi, j, k)] = r.value(gi, j, k, f + g.index(i, j, k));
  }
  // y and z faces: line L < G2 nz is y ghost line (m = L % G2, k = L / G2); the rest are z lines.
  const unsigned xb = (static_cast<unsigned>(g.nx) + 255) / 256;
  for (unsigned b = blockIdx.x; b < yz_lines * xb; b += gridDim.x) {
    const unsigned line = b / xb;
    const int i = static_cast<int>((b % xb) * 256 + threadIdx.x);
    if (i >= g.nx) continue;
    const unsigned y_lines = G2 * static_cast<unsigned>(g.nz);
    if (line < y_lines) {
      const int m = static_cast<int>(line % G2), k = static_cast<int>(line / G2);
      const int j = m < kGhost ? m : g.ny - G2 + m;
      const int gj = ghost_of(j, g.ny, wrap);
      f[g.index(i, gj, k)] = r.value(i, gj, k, f + g.index(i, j, k));
    } else {
      const unsigned zl = line - y_lines;
      const int j = static_cast<int>(zl % g.ny), m = static_cast<int>(zl / g.ny);
      const int k = m < kGhost ? m : g.nz - G2 + m;
      const int gk = ghost_of(k, g.nz, wrap);
      f[g.index(i, j, gk)] = r.value(i, j, gk, f + g.index(i, j, k));
    }
  }
}

/// Enqueues the boundary step for field f; `rule` points to device memory.
template <typename T>
inline void launch_fill_ghosts3d(T* f, const Grid3D& g, const GhostRule3D<T>* rule, cudaStream_t s) {
  static const unsigned resident = [] {  // eight 256-thread blocks per SM
    int dev = 0, sms = 0;
    SS_CUDA_CHECK(cudaGetDevice(&dev));
    SS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return static_cast<unsigned>(8 * sms);
  }();
  constexpr long long G2 = 2 * kGhost;
  const long long xb = (g.nx + 255) / 256;
  const long long x_blocks = (G2 * g.ny * g.nz + 255) / 256, yz_lines = G2 * (g.nz + static_cast<long long>(g.ny));
  if (G2 * g.ny * g.nz < (1LL << 32) && yz_lines * xb < (1LL << 32)) {
    fill_ghost_lines3d_kernel<T><<<resident, 256, 0, s>>>(f, g, rule, static_cast<unsigned>(x_blocks),
                                                           static_cast<unsigned>(yz_lines));
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
