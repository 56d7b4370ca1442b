#pragma once
// The heat 2D kernel family, templated on value type and stencil radius. Every
// variant reads its neighbours differently and then calls heat2d_point and
// store_point, so all of them write bitwise-identical fields:
//   global - one point per thread, neighbours straight from global memory
//   block  - each thread updates kBlockRows points along y (CME 213 algorithm 2)
//   shared - a tile plus halo staged in shared memory, looping along y (algorithm 3)
//   stream - each thread walks its column along y with the 2R+1 values in a
//            register queue; shared memory only for the x neighbours
// Grids taller than gridDim.y allows loop over block rows, so any size runs.
#include "cuda_check.cuh"
#include "stencilscope/heat2d.hpp"

namespace ss {

template <typename T>
struct Heat2DStepArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid2D g;
  T c;  // alpha dt / h^2
  GhostRule<T> rule;
  int block_rows_y;  // blocks needed along y (may exceed gridDim.y)
};

template <typename T>
__device__ __forceinline__ void store_point(const Heat2DStepArgs<T>& a, int i, int j, T v) {
  a.out[a.g.index(i, j)] = v;
  if (near_edge(a.g, i, j)) write_ghost_images(a.out, a.g, i, j, v, a.rule);
}

// ---- global --------------------------------------------------------------
inline constexpr int kGlobalBX = 32, kGlobalBY = 8;

template <typename T, int R>
__global__ void __launch_bounds__(kGlobalBX* kGlobalBY) heat2d_step_global(Heat2DStepArgs<T> a) {
  const int i = blockIdx.x * kGlobalBX + threadIdx.x;
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
    const int j = by * kGlobalBY + threadIdx.y;
    if (i >= a.g.nx || j >= a.g.ny) continue;
    const T* p = a.in + a.g.index(i, j);
    const std::ptrdiff_t pitch = a.g.pitch;
    T row[2 * R + 1], col[2 * R + 1];
#pragma unroll
    for (int k = 0; k <= 2 * R; ++k) {
      row[k] = __ldg(p + (k - R));
      col[k] = __ldg(p + (k - R) * pitch);
    }
    store_point(a, i, j, heat2d_point<T, R>(row, col, a.c, a.c));
  }
}

// ---- block ---------------------------------------------------------------
inline constexpr int kBlockBX = 32, kBlockBY = 8, kBlockRows = 8;  // numYPerStep

template <typename T, int R>
__global__ void __launch_bounds__(kBlockBX* kBlockBY) heat2d_step_block(Heat2DStepArgs<T> a) {
  const int i = blockIdx.x * kBlockBX + threadIdx.x;
  if (i >= a.g.nx) return;
  const std::ptrdiff_t pitch = a.g.pitch;
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
#pragma unroll 2
    for (int s = 0; s < kBlockRows; ++s) {
      const int j = by * (kBlockBY * kBlockRows) + s * kBlockBY + threadIdx.y;
      if (j >= a.g.ny) break;
      const T* p = a.in + a.g.index(i, j);
      T row[2 * R + 1], col[2 * R + 1];
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) {
        row[k] = __ldg(p + (k - R));
        col[k] = __ldg(p + (k - R) * pitch);
      }
      store_point(a, i, j, heat2d_point<T, R>(row, col, a.c, a.c));
    }
  }
}

// ---- shared --------------------------------------------------------------
inline constexpr int kSharedBX = 64, kSharedBY = 4;
inline constexpr int kSharedChunk = 32;   // rows staged per pass (8 per thread)
inline constexpr int kSharedPasses = 4;   // passes per block: a strip of 128 rows

template <typename T, int R>
__global__ void __launch_bounds__(kSharedBX* kSharedBY) heat2d_step_shared(Heat2DStepArgs<T> a) {
  constexpr int TW = kSharedBX + 2 * R, TH = kSharedChunk + 2 * R;
  __shared__ T tile[TH][TW];
  const int i0 = blockIdx.x * kSharedBX;
  const int i = i0 + threadIdx.x;
  const int tid = threadIdx.y * kSharedBX + threadIdx.x;
  const int xlim = a.g.nx + R, ylim = a.g.ny + R;  // last readable cells + 1
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
    for (int pass = 0; pass < kSharedPasses; ++pass) {
      const int j0 = (by * kSharedPasses + pass) * kSharedChunk;
      if (j0 >= a.g.ny) break;
      // Step 1: all threads stage the tile (rows j0-R .. j0+chunk+R-1, columns i0-R .. i0+BX+R-1).
      for (int e = tid; e < TH * TW; e += kSharedBX * kSharedBY) {
        const int ty = e / TW, tx = e - ty * TW;
        const int x = i0 - R + tx, y = j0 - R + ty;
        if (x < xlim && y < ylim) tile[ty][tx] = a.in[a.g.index(x, y)];
      }
      __syncthreads();
      // Step 2: threads inside the domain apply the stencil.
      if (i < a.g.nx) {
#pragma unroll 2
        for (int r = threadIdx.y; r < kSharedChunk; r += kSharedBY) {
          const int j = j0 + r;
          if (j >= a.g.ny) break;
          T row[2 * R + 1], col[2 * R + 1];
#pragma unroll
          for (int k = 0; k <= 2 * R; ++k) {
            row[k] = tile[r + R][threadIdx.x + k];
            col[k] = tile[r + k][threadIdx.x + R];
          }
          store_point(a, i, j, heat2d_point<T, R>(row, col, a.c, a.c));
        }
      }
      __syncthreads();
    }
  }
}

// ---- stream --------------------------------------------------------------
inline constexpr int kStreamBX = 128;     // threads (columns) per block
inline constexpr int kStreamRows = 256;   // rows each block walks

template <typename T, int R>
__global__ void __launch_bounds__(kStreamBX) heat2d_step_stream(Heat2DStepArgs<T> a) {
  __shared__ T line[kStreamBX + 2 * R];
  const int t = threadIdx.x;
  const int i0 = blockIdx.x * kStreamBX;
  const int i = i0 + t;
  const int nx = a.g.nx, ny = a.g.ny;
  const std::ptrdiff_t pitch = a.g.pitch;
  const bool column = i < nx + R;  // this thread's column is read by someone
  // Halo threads: the first R threads also fetch the left halo, the last R the right one.
  const int halo_x = t < R ? i0 - R + t : (t >= kStreamBX - R ? i0 + t + R : -1 - kGhost);
  const bool halo = halo_x >= -R && halo_x < nx + R;
  const int halo_slot = t < R ? t : t + 2 * R;
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
    const int j0 = by * kStreamRows;
    const int j1 = min(j0 + kStreamRows, ny);
    T q[2 * R + 1];  // q[k] = T(i, j + k - R)
    T next = 0, halo_next = 0;
    if (column) {
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) q[k] = a.in[a.g.index(i, j0 - R + k)];
      q[2 * R] = a.in[a.g.index(i, j0 + R)];
    }
    if (halo) halo_next = a.in[a.g.index(halo_x, j0)];
    for (int j = j0; j < j1; ++j) {
      const T halo_now = halo_next;
      // Prefetch the next row while this one is computed.
      if (j + 1 < j1) {
        if (column) next = a.in[a.g.index(i, j + 1 + R)];
        if (halo) halo_next = a.in[a.g.index(halo_x, j + 1)];
      }
      if (column) line[t + R] = q[R];
      if (halo) line[halo_slot] = halo_now;
      __syncthreads();
      if (i < nx) {
        T row[2 * R + 1];
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) row[k] = line[t + k];
        store_point(a, i, j, heat2d_point<T, R>(row, q, a.c, a.c));
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) q[k] = q[k + 1];
      q[2 * R] = next;
    }
  }
}

}  // namespace ss
