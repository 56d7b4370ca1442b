#pragma once
// The heat 3D kernel family, templated on value type and stencil radius. Every
// variant gathers the three 2R+1 lines its own way and calls heat3d_point, so all
// write bitwise-identical fields. Interior only: the ghost faces are written by
// the separate boundary step (ghost3d_kernels.cuh) after each launch.
//   global    - one point per thread, neighbours straight from global memory
//   shared3d  - a 32x4x4 tile plus its cross-shaped halo staged in shared memory
//   stream25d - Micikevicius (2009): a 32x16 xy tile in shared memory, the z line
//               in a register queue (loads issued kHeatPrefetch planes ahead), the
//               block marching along z over a slab chosen at launch; the next
//               plane's xy halo is loaded into registers one step ahead.
#include "cuda_check.cuh"
#include "stencilscope/heat3d.hpp"

namespace ss {

template <typename T>
struct Heat3DStepArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid3D g;
  T c;  // alpha dt / h^2
};

// ---- global --------------------------------------------------------------
inline constexpr int kHeatGlobalBX = 32, kHeatGlobalBY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kHeatGlobalBX* kHeatGlobalBY) heat3d_step_global(Heat3DStepArgs<T> a) {
  const int i = blockIdx.x * kHeatGlobalBX + threadIdx.x;
  const int j = blockIdx.y * kHeatGlobalBY + threadIdx.y;
  if (i >= a.g.nx || j >= a.g.ny) return;
  const std::ptrdiff_t pitch = a.g.pitch, plane = static_cast<std::ptrdiff_t>(a.g.plane());
  for (int k = blockIdx.z; k < a.g.nz; k += gridDim.z) {
    const T* p = a.in + a.g.index(i, j, k);
    T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
    for (int m = 0; m <= 2 * R; ++m) {
      row[m] = __ldg(p + (m - R));
      col[m] = __ldg(p + (m - R) * pitch);
      dep[m] = __ldg(p + (m - R) * plane);
    }
    a.out[a.g.index(i, j, k)] = heat3d_point<T, R>(row, col, dep, a.c);
  }
}

// ---- shared3d ------------------------------------------------------------
inline constexpr int kShared3BX = 32, kShared3BY = 4, kShared3BZ = 4;

template <typename T, int R>
__global__ void __launch_bounds__(kShared3BX* kShared3BY* kShared3BZ) heat3d_step_shared3d(Heat3DStepArgs<T> a) {
  constexpr int TX = kShared3BX + 2 * R, TY = kShared3BY + 2 * R, TZ = kShared3BZ + 2 * R;
  constexpr int NT = kShared3BX * kShared3BY * kShared3BZ;
  __shared__ T tile[TZ][TY][TX];
  const Grid3D& g = a.g;
  const int i0 = blockIdx.x * kShared3BX, j0 = blockIdx.y * kShared3BY;
  const int tid = (threadIdx.z * kShared3BY + threadIdx.y) * kShared3BX + threadIdx.x;
  const int zblocks = (g.nz + kShared3BZ - 1) / kShared3BZ;
  for (int bz = blockIdx.z; bz < zblocks; bz += gridDim.z) {
    const int k0 = bz * kShared3BZ;
    // Stage the core and the cross-shaped halo (edges and corners are never read).
    for (int e = tid; e < TX * TY * TZ; e += NT) {
      const int tx = e % TX, ty = (e / TX) % TY, tz = e / (TX * TY);
      const int outside = (tx < R || tx >= TX - R) + (ty < R || ty >= TY - R) + (tz < R || tz >= TZ - R);
      const int x = i0 - R + tx, y = j0 - R + ty, z = k0 - R + tz;
      if (outside <= 1 && x < g.nx + R && y < g.ny + R && z < g.nz + R) tile[tz][ty][tx] = a.in[g.index(x, y, z)];
    }
    __syncthreads();
    const int i = i0 + threadIdx.x, j = j0 + threadIdx.y, k = k0 + threadIdx.z;
    if (i < g.nx && j < g.ny && k < g.nz) {
      const int cx = threadIdx.x + R, cy = threadIdx.y + R, cz = threadIdx.z + R;
      T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
      for (int m = 0; m <= 2 * R; ++m) {
        row[m] = tile[cz][cy][threadIdx.x + m];
        col[m] = tile[cz][threadIdx.y + m][cx];
        dep[m] = tile[threadIdx.z + m][cy][cx];
      }
      a.out[g.index(i, j, k)] = heat3d_point<T, R>(row, col, dep, a.c);
    }
    __syncthreads();
  }
}

// ---- stream25d -----------------------------------------------------------
inline constexpr int kStream25BX = 32, kStream25BY = 16;
template <typename T>
inline constexpr int kHeatPrefetch = sizeof(T) == 4 ? 4 : 2;

template <typename T, int R>
__global__ void __launch_bounds__(kStream25BX* kStream25BY) heat3d_step_stream25d(Heat3DStepArgs<T> a, int slab) {
  constexpr int TX = kStream25BX + 2 * R, TY = kStream25BY + 2 * R;
  constexpr int PF = kHeatPrefetch<T>;
  constexpr int Q = 2 * R + 1 + PF;
  __shared__ T tile[TY][TX];
  const Grid3D& g = a.g;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.x * kStream25BX + tx, j = blockIdx.y * kStream25BY + ty;
  const int k0 = blockIdx.z * slab, k1 = min(k0 + slab, g.nz);
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());
  // This thread's column (ghost columns included: they are the tile's halo too).
  const bool column = i < g.nx + R && j < g.ny + R;
  const bool inside = i < g.nx && j < g.ny;
  // Halo duties: x halo (left and right of this row), y halo (below and above this column).
  const bool hx = tx < R && j < g.ny;
  const bool hy = ty < R && i < g.nx;
  const int xl = i - R, xr = i + kStream25BX;  // (tx < R) left: i0 - R + tx; right: i0 + 32 + tx
  const int yb = j - R, yt = j + kStream25BY;
  const bool hxr = hx && xr < g.nx + R, hyt = hy && yt < g.ny + R;
  const T* col_ptr = a.in + g.index(min(i, g.nx + R - 1), min(j, g.ny + R - 1), k0);  // plane k0
  auto at = [&](int x, int y, int dz) { return a.in + g.index(x, y, k0) + dz * plane; };

  T q[Q];
  // Planes k0 - R .. k0 + R + PF - 1 (never past the last ghost plane k1 - 1 + R).
  if (column) {
#pragma unroll
    for (int m = 0; m < 2 * R + PF; ++m)
      if (m - R < k1 - k0 + R) q[m] = __ldg(col_ptr + (m - R) * plane);
  }
  T hl = 0, hr = 0, hb = 0, ht = 0;  // halo of the plane about to be staged
  if (hx) hl = __ldg(at(xl, j, 0));
  if (hxr) hr = __ldg(at(xr, j, 0));
  if (hy) hb = __ldg(at(i, yb, 0));
  if (hyt) ht = __ldg(at(i, yt, 0));

  T* dst = a.out + g.index(i, j, k0);
  for (int s0 = 0; k0 + s0 < k1; s0 += Q) {
#pragma unroll
    for (int s = 0; s < Q; ++s) {
      const int d = s0 + s;  // this step's plane is k0 + d
      if (k0 + d >= k1) break;
      // Stage plane k0 + d: the centre from the queue, the halo from registers.
      if (column) tile[ty + R][tx + R] = q[(R + s) % Q];
      if (hx) tile[ty + R][tx] = hl;
      if (hxr) tile[ty + R][tx + R + kStream25BX] = hr;
      if (hy) tile[ty][tx + R] = hb;
      if (hyt) tile[ty + R + kStream25BY][tx + R] = ht;
      // Loads for later steps: plane k0 + d + R + PF into the queue, next plane's halo.
      if (column && d + R + PF < k1 - k0 + R) q[(2 * R + PF + s) % Q] = __ldg(col_ptr + (d + R + PF) * plane);
      if (k0 + d + 1 < k1) {
        if (hx) hl = __ldg(at(xl, j, d + 1));
        if (hxr) hr = __ldg(at(xr, j, d + 1));
        if (hy) hb = __ldg(at(i, yb, d + 1));
        if (hyt) ht = __ldg(at(i, yt, d + 1));
      }
      __syncthreads();
      if (inside) {
        T row[2 * R + 1], col[2 * R + 1], dep[2 * R + 1];
#pragma unroll
        for (int m = 0; m <= 2 * R; ++m) {
          row[m] = tile[ty + R][tx + m];
          col[m] = tile[ty + m][tx + R];
          dep[m] = q[(m + s) % Q];
        }
        dst[d * plane] = heat3d_point<T, R>(row, col, dep, a.c);
      }
      __syncthreads();
    }
  }
}

}  // namespace ss
