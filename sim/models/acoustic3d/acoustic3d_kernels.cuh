#pragma once
// The acoustic 3D kernel family, templated on value type and stencil radius. Both
// variants gather the three 2R+1 lines their own way and call acoustic3d_point, so they
// write the same bits as the `cpu` variant. They read the ghost faces of p that the
// boundary step (acoustic3d_ghosts) wrote after the previous step.
//   global    - one point per thread, neighbours straight from global memory
//   stream25d - Micikevicius (2009): a 32x8 xy tile plus halo of the current plane in
//               shared memory, the z line of each thread's column in a register queue,
//               the block marching along z over a slab of planes. Plain loads and two
//               block barriers per plane: none of heat3d's cp.async ring, 16-byte packs
//               or in-kernel boundary (a first version, measured before it is tuned).
// The minimal traffic per node and step: p, p_prev and (v dt/h)^2 read once, p_next
// written once (16 bytes in float); the damping tables are nx + ny + nz values.
#include "sim/core/cuda_check.cuh"
#include "sim/core/ghost3d.hpp"  // ghost_face_cells
#include "sim/core/slice3d.hpp"  // CellBox
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

template <typename T>
struct Acoustic3DStepArgs {
  const T* __restrict__ p;      // p^n (ghost faces written)
  const T* __restrict__ prev;   // p^{n-1}
  const T* __restrict__ c2;     // (v dt / h)^2 per node
  const T* __restrict__ damp;   // damping tables: x (nx), y (ny), z (nz)
  T* __restrict__ out;          // p^{n+1}
  Grid3D g;
};

// ---- global --------------------------------------------------------------
inline constexpr int kAcousticGlobalBX = 32, kAcousticGlobalBY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kAcousticGlobalBX* kAcousticGlobalBY) acoustic3d_step_global(Acoustic3DStepArgs<T> a) {
  const Grid3D& g = a.g;
  const int i = blockIdx.x * kAcousticGlobalBX + threadIdx.x;
  const int j = blockIdx.y * kAcousticGlobalBY + threadIdx.y;
  if (i >= g.nx || j >= g.ny) return;
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  const T damp_xy = __ldg(a.damp + i) * __ldg(a.damp + g.nx + j);
  for (int k = blockIdx.z; k < g.nz; k += gridDim.z) {
    const std::size_t e = g.index(i, j, k);
    const T* c = a.p + e;
    T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
    for (int m = 0; m <= 2 * R; ++m) {
      row[m] = __ldg(c + (m - R));
      col[m] = __ldg(c + (m - R) * pitch);
      dep[m] = __ldg(c + (m - R) * plane);
    }
    const T damp = damp_xy * __ldg(a.damp + g.nx + g.ny + k);
    a.out[e] = acoustic3d_point<T, R>(row, col, dep, __ldg(a.prev + e), __ldg(a.c2 + e), damp);
  }
}

// ---- stream25d -----------------------------------------------------------
inline constexpr int kAcoustic25BX = 32, kAcoustic25BY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kAcoustic25BX* kAcoustic25BY)
    acoustic3d_step_stream25d(Acoustic3DStepArgs<T> a, int slab) {
  constexpr int BX = kAcoustic25BX, BY = kAcoustic25BY, Q = 2 * R + 1;
  static_assert(BX >= R && BY >= R, "the halo is staged by the first R threads of each axis");
  __shared__ T tile[BY + 2 * R][BX + 2 * R];
  const Grid3D& g = a.g;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i0 = blockIdx.x * BX, j0 = blockIdx.y * BY;
  const int i = i0 + tx, j = j0 + ty;
  const int k0 = blockIdx.z * slab, k1 = min(k0 + slab, g.nz);
  const bool inside = i < g.nx && j < g.ny;
  // Other threads stage their node when a row or column stencil of the tile reads it
  // (x or y ghosts next to the interior; the corner beyond both is staged, never read).
  const bool stage_own = !inside && i < g.nx + R && j < g.ny + R;
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());
  const T* own = a.p + g.index(min(i, g.nx - 1), min(j, g.ny - 1), 0);  // plane 0 of this column
  const T damp_xy = inside ? a.damp[i] * a.damp[g.nx + j] : T(0);
  // q[m] holds p(i, j, k + m - R) during the step of plane k.
  T q[Q];
  if (inside) {
#pragma unroll
    for (int m = 0; m < 2 * R; ++m) q[m] = own[(k0 - R + m) * plane];
  }
  for (int k = k0; k < k1; ++k) {
    if (inside) {
      q[2 * R] = own[(k + R) * plane];
      tile[ty + R][tx + R] = q[R];
    } else if (stage_own) {
      tile[ty + R][tx + R] = a.p[g.index(i, j, k)];
    }
    if (tx < R && j < g.ny) {  // x halo of the tile's interior rows
      tile[ty + R][tx] = a.p[g.index(i0 - R + tx, j, k)];
      if (i0 + BX + tx < g.nx + R) tile[ty + R][BX + R + tx] = a.p[g.index(i0 + BX + tx, j, k)];
    }
    if (ty < R && i < g.nx) {  // y halo of the tile's interior columns
      tile[ty][tx + R] = a.p[g.index(i, j0 - R + ty, k)];
      if (j0 + BY + ty < g.ny + R) tile[BY + R + ty][tx + R] = a.p[g.index(i, j0 + BY + ty, k)];
    }
    __syncthreads();
    if (inside) {
      T row[Q], col[Q], dep[Q];
#pragma unroll
      for (int m = 0; m < Q; ++m) {
        row[m] = tile[ty + R][tx + m];
        col[m] = tile[ty + m][tx + R];
        dep[m] = q[m];
      }
      const std::size_t e = g.index(i, j, k);
      a.out[e] = acoustic3d_point<T, R>(row, col, dep, a.prev[e], a.c2[e], damp_xy * a.damp[g.nx + g.ny + k]);
#pragma unroll
      for (int m = 0; m < 2 * R; ++m) q[m] = q[m + 1];
    }
    __syncthreads();  // the tile is rewritten with the next plane
  }
}

// ---- after the interior update -------------------------------------------

/// Adds the source increment at (sx, sy, sz) when `inject`, then copies the receiver line
/// (j = sy, k = sz) into trace_row unless it is null.
template <typename T>
__global__ void acoustic3d_inject_record(T* out, Grid3D g, int sx, int sy, int sz, T add, bool inject, T* trace_row) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < g.nx; i += gridDim.x * blockDim.x) {
    T& v = out[g.index(i, sy, sz)];
    if (inject && i == sx) v = v + add;
    if (trace_row) trace_row[i] = v;
  }
}

/// The boundary step: every ghost face cell of f.
template <typename T>
__global__ void acoustic3d_ghosts(T* f, Grid3D g, AcousticGhostRule r) {
  const long long n = ghost_face_cells(g);
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_acoustic_ghost(f, g, e, r);
}

/// Adds `add` (the box's cells, x fastest) to p and p_prev over the cell box b.
template <typename T>
__global__ void acoustic3d_add_box(T* p, T* p_prev, Grid3D g, CellBox b, const T* add) {
  const int wx = b.hi[0] - b.lo[0] + 1, wy = b.hi[1] - b.lo[1] + 1, wz = b.hi[2] - b.lo[2] + 1;
  const long long n = static_cast<long long>(wx) * wy * wz;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = b.lo[0] + static_cast<int>(e % wx), j = b.lo[1] + static_cast<int>(e / wx % wy);
    const int k = b.lo[2] + static_cast<int>(e / (static_cast<long long>(wx) * wy));
    const std::size_t at = g.index(i, j, k);
    p[at] = p[at] + add[e];
    p_prev[at] = p_prev[at] + add[e];
  }
}

}  // namespace ss
