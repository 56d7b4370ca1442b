#pragma once
// The deriv3d kernel family, templated on value type, stencil radius and axis.
// Every variant gathers the 2R+1 values along the axis its own way and calls
// deriv_point, so all write bitwise-identical derivatives:
//   global  - one point per thread, neighbours straight from global memory
//   spencil - the posts' small pencils: a tile of 4 whole pencils along the axis
//             in shared memory, periodic images copied within the tile,
//             coefficients in constant memory (64x4 at 64^3)
//   lpencil - the posts' large pencils: 32 whole pencils per tile (64x32 at 64^3)
//   stream  - ours. x: each warp stages several rows of a 32-pack segment plus
//             halo in shared memory with cp.async, each thread then reads its
//             window as 16-byte shared loads. y and z: each thread owns one
//             16-byte pack column and marches along the axis with the 2R+1 packs
//             in a register queue, loads issued kPrefetch rows ahead; strips
//             along the axis chosen at launch to fill the GPU. Any size.
// The pencils hold a whole axis in one block, so they stop at 256 points per
// axis (1024 threads); the launcher says so instead of launching.
// The posts' own kernels (posts-spencil, posts-lpencil), which keep their own
// stencil sum instead of deriv_point, are in deriv3d_posts_kernels.inc.
#include <cuda_pipeline.h>

#include "sim/core/cuda_check.cuh"
#include "sim/core/pack.cuh"
#include "sim/core/pdl.cuh"
#include "sim/models/deriv3d/deriv3d.hpp"

namespace ss {

template <typename T>
struct Deriv3DArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid3D g;
  DerivCoeffs<T> c;  // indexed only by unrolled constants
};

template <int A>
__device__ __forceinline__ std::ptrdiff_t axis_stride(const Grid3D& g) {
  if constexpr (A == 0) return 1;
  else if constexpr (A == 1) return g.pitch;
  else return static_cast<std::ptrdiff_t>(g.plane());
}

// ---- global --------------------------------------------------------------
inline constexpr int kDerivGlobalBX = 32, kDerivGlobalBY = 8;

template <typename T, int R, int A>
__global__ void __launch_bounds__(kDerivGlobalBX* kDerivGlobalBY) deriv3d_global(Deriv3DArgs<T> a) {
  const int i = blockIdx.x * kDerivGlobalBX + threadIdx.x;
  const int j = blockIdx.y * kDerivGlobalBY + threadIdx.y;
  if (i >= a.g.nx || j >= a.g.ny) return;
  const std::ptrdiff_t stride = axis_stride<A>(a.g);
  for (int k = blockIdx.z; k < a.g.nz; k += gridDim.z) {
    const T* p = a.in + a.g.index(i, j, k);
    T v[2 * R + 1];
#pragma unroll
    for (int m = 0; m <= 2 * R; ++m) v[m] = __ldg(p + (m - R) * stride);
    a.out[a.g.index(i, j, k)] = deriv_point<T, R>(v, a.c);
  }
}

// ---- spencil / lpencil (the posts) ----------------------------------------
// Coefficients per axis in constant memory, as in the posts (c_ax .. c_dz).
__constant__ DerivCoeffs<float> c_deriv_f32[3];
__constant__ DerivCoeffs<double> c_deriv_f64[3];

template <typename T>
__device__ __forceinline__ DerivCoeffs<T> constant_coeffs(int axis) {
  if constexpr (sizeof(T) == 4) return c_deriv_f32[axis];
  else return c_deriv_f64[axis];
}

inline constexpr int kSPencils = 4, kLPencils = 32;

// x: block (nx, kSPencils), tile [P][nx + 2R]; grid (ceil(ny / P), nz). The posts'
// derivative_x (P = 4) and derivative_x_lPencils (P = 32, each thread loops).
template <typename T, int R, int P>
__global__ void deriv3d_pencil_x(const T* __restrict__ in, T* __restrict__ out, Grid3D g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* s = reinterpret_cast<T*>(smem_raw);
  const int nx = g.nx, W = nx + 2 * R;
  const int i = threadIdx.x;
  const int j_base = blockIdx.x * P;
  const DerivCoeffs<T> c = constant_coeffs<T>(0);
  for (int k = blockIdx.y; k < g.nz; k += gridDim.y) {
    for (int sj = threadIdx.y; sj < P; sj += blockDim.y)
      if (j_base + sj < g.ny) s[sj * W + i + R] = in[g.index(i, j_base + sj, k)];
    __syncthreads();
    if (i < R) {  // periodic images, copied within the tile
      for (int sj = threadIdx.y; sj < P; sj += blockDim.y) {
        s[sj * W + i] = s[sj * W + i + nx];
        s[sj * W + nx + R + i] = s[sj * W + R + i];
      }
    }
    __syncthreads();
    for (int sj = threadIdx.y; sj < P; sj += blockDim.y) {
      if (j_base + sj >= g.ny) break;
      T v[2 * R + 1];
#pragma unroll
      for (int m = 0; m <= 2 * R; ++m) v[m] = s[sj * W + i + m];
      out[g.index(i, j_base + sj, k)] = deriv_point<T, R>(v, c);
    }
    __syncthreads();
  }
}

// y or z (A = 1, 2): block (P, BY), tile [n + 2R][P]; grid (ceil(nx / P), n_other).
// The posts' derivative_y / _z (P = 4, BY = n) and their lPencils (P = 32, BY = n / 8).
template <typename T, int R, int P, int A>
__global__ void deriv3d_pencil_yz(const T* __restrict__ in, T* __restrict__ out, Grid3D g) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* s = reinterpret_cast<T*>(smem_raw);
  const int n = A == 1 ? g.ny : g.nz;
  const int n_other = A == 1 ? g.nz : g.ny;
  const std::ptrdiff_t stride = axis_stride<A>(g);
  const int si = threadIdx.x;
  const int i = blockIdx.x * P + si;
  const bool inside = i < g.nx;
  const DerivCoeffs<T> c = constant_coeffs<T>(A);
  for (int o = blockIdx.y; o < n_other; o += gridDim.y) {
    const std::size_t base = A == 1 ? g.index(i, 0, o) : g.index(i, o, 0);
    if (inside)
      for (int a = threadIdx.y; a < n; a += blockDim.y) s[(a + R) * P + si] = in[base + a * stride];
    __syncthreads();
    if (inside)
      for (int a = threadIdx.y; a < R; a += blockDim.y) {  // periodic images
        s[a * P + si] = s[(a + n) * P + si];
        s[(n + R + a) * P + si] = s[(R + a) * P + si];
      }
    __syncthreads();
    if (inside)
      for (int a = threadIdx.y; a < n; a += blockDim.y) {
        T v[2 * R + 1];
#pragma unroll
        for (int m = 0; m <= 2 * R; ++m) v[m] = s[(a + m) * P + si];
        out[base + a * stride] = deriv_point<T, R>(v, c);
      }
    __syncthreads();
  }
}

// ---- stream (ours) -------------------------------------------------------
// x: each warp stages kStreamXRows rows of a 32-pack segment (plus one halo pack
// each side) in its own shared rows with cp.async, all issued before the first
// wait, then reads each thread's window as 16-byte shared loads. The first
// version read the window's three packs from global memory (the neighbours'
// from L1): 0.86-0.89 of copy on an H200.
inline constexpr int kStreamXThreadsX = 32, kStreamXThreadsY = 4, kStreamXRows = 8;

template <typename T, int R>
struct StreamXShape {
  static constexpr int W = Pack<T>::n;
  static constexpr int HV = (R + W - 1) / W;  // halo packs per side
  static constexpr int H = HV * W;
  static constexpr int TW = kStreamXThreadsX * W;  // segment width in columns
  static constexpr int LW = TW + 2 * H;
};

// Block (32, kStreamXThreadsY): warp ty takes rows (blockIdx.y * kStreamXThreadsY + ty) * kStreamXRows + m
// of segment blockIdx.x (grid-strided where the grid is capped). Segments vary
// fastest, so the blocks of one row's segments run together and the halo packs
// a segment reads of its neighbours' come from L2 (with rows fastest, ncu showed
// 11% more DRAM traffic than the field itself).
template <typename T, int R>
__global__ void __launch_bounds__(kStreamXThreadsX* kStreamXThreadsY) deriv3d_stream_x(Deriv3DArgs<T> a) {
  using S = StreamXShape<T, R>;
  constexpr int W = S::W, H = S::H, HV = S::HV, LW = S::LW;
  __shared__ __align__(16) T rows_smem[kStreamXThreadsY][kStreamXRows][LW];
  const Grid3D& g = a.g;
  const int lane = threadIdx.x, ty = threadIdx.y;
  const long long rows = static_cast<long long>(g.ny) * g.nz;
  const int segments = (g.nx + S::TW - 1) / S::TW;
  int halo_x = -2 * H;  // lanes 0..HV-1 fetch the left halo, 32-HV..31 the right
  int halo_slot = 0;
  if (lane < HV) halo_x = -H + lane * W, halo_slot = lane * W;
  if (lane >= kStreamXThreadsX - HV) {
    halo_x = S::TW + (lane - (kStreamXThreadsX - HV)) * W;
    halo_slot = H + S::TW + (lane - (kStreamXThreadsX - HV)) * W;
  }
  pdl_wait();  // sim/core/pdl.cuh: the launch before it has written what this one reads and writes
  for (int seg = blockIdx.x; seg < segments; seg += gridDim.x) {
    const int x0 = seg * S::TW;
    const int c = x0 + lane * W;
    const bool fetch_core = c < g.nx + R;
    const bool fetch_halo = halo_x > -2 * H && x0 + halo_x < g.nx + R;
    for (long long rb = blockIdx.y * static_cast<long long>(kStreamXThreadsY) + ty; rb * kStreamXRows < rows;
         rb += static_cast<long long>(gridDim.y) * kStreamXThreadsY) {
      std::size_t base[kStreamXRows];  // offset of (x0, j, k) for each row
#pragma unroll
      for (int m = 0; m < kStreamXRows; ++m) {
        const long long r = rb * kStreamXRows + m;
        base[m] = 0;
        if (r < rows) {
          const int j = static_cast<int>(r % g.ny), k = static_cast<int>(r / g.ny);
          base[m] = g.index(x0, j, k);
          T* srow = rows_smem[ty][m];
          if (fetch_core) __pipeline_memcpy_async(srow + H + lane * W, a.in + base[m] + lane * W, 16);
          if (fetch_halo) __pipeline_memcpy_async(srow + halo_slot, a.in + base[m] + halo_x, 16);
        }
      }
      __pipeline_commit();
      __pipeline_wait_prior(0);
      __syncwarp();
      if (c < g.nx) {
#pragma unroll
        for (int m = 0; m < kStreamXRows; ++m) {
          if (rb * kStreamXRows + m >= rows) break;
          T win[W + 2 * H];  // columns c - H .. c + W + H - 1
#pragma unroll
          for (int v = 0; v < (W + 2 * H) / W; ++v) {
            const Pack<T> pk = *reinterpret_cast<const Pack<T>*>(&rows_smem[ty][m][lane * W + v * W]);
#pragma unroll
            for (int w = 0; w < W; ++w) win[v * W + w] = pk.v[w];
          }
          Pack<T> res;
#pragma unroll
          for (int w = 0; w < W; ++w) {
            T v[2 * R + 1];
#pragma unroll
            for (int q = 0; q <= 2 * R; ++q) v[q] = win[H + w + q - R];
            res.v[w] = deriv_point<T, R>(v, a.c);
          }
          T* dst = a.out + base[m] + lane * W;
          if (c + W <= g.nx) {
            *reinterpret_cast<Pack<T>*>(dst) = res;
          } else {
#pragma unroll
            for (int w = 0; w < W; ++w)
              if (c + w < g.nx) dst[w] = res.v[w];
          }
        }
      }
      __syncwarp();  // the rows are read before the next group overwrites them
    }
  }
  pdl_trigger();
}

inline constexpr int kStreamYZThreadsX = 32, kStreamYZThreadsY = 4;
template <typename T>
inline constexpr int kStreamPrefetch = sizeof(T) == 4 ? 4 : 2;

// y or z (A = 1, 2): thread (tx, ty) owns pack px of line o (z for A = 1, y for
// A = 2) and marches along the axis over [a0, a1) of its strip. Queue slot
// (m + s) % Q holds row a + m - R at unrolled step s: it rotates by renaming.
template <typename T, int R, int A>
__global__ void __launch_bounds__(kStreamYZThreadsX* kStreamYZThreadsY)
    deriv3d_stream_yz(Deriv3DArgs<T> a, int strip) {
  constexpr int W = Pack<T>::n;
  constexpr int PF = kStreamPrefetch<T>;
  constexpr int Q = 2 * R + 1 + PF;
  const Grid3D& g = a.g;
  const int n = A == 1 ? g.ny : g.nz;
  const int n_other = A == 1 ? g.nz : g.ny;
  const std::ptrdiff_t stride = axis_stride<A>(g);
  const int px = blockIdx.x * kStreamYZThreadsX + threadIdx.x;
  const int c0 = px * W;
  if (c0 >= g.nx) return;
  pdl_wait();  // sim/core/pdl.cuh: the launch before it has written what this one reads and writes
  const int a0 = blockIdx.z * strip;
  const int a1 = min(a0 + strip, n);
  for (int o = blockIdx.y * kStreamYZThreadsY + threadIdx.y; o < n_other; o += gridDim.y * kStreamYZThreadsY) {
    const T* src = a.in + (A == 1 ? g.index(c0, a0, o) : g.index(c0, o, a0));  // row a0
    T* dst = a.out + (A == 1 ? g.index(c0, a0, o) : g.index(c0, o, a0));
    auto row = [&](int d) { return reinterpret_cast<const Pack<T>*>(src + d * stride); };  // row a0 + d
    Pack<T> q[Q];
    // Rows a0 - R .. a0 + R + PF - 1 (never past the last ghost row a1 - 1 + R).
#pragma unroll
    for (int m = 0; m < 2 * R + PF; ++m)
      if (m - R < a1 - a0 + R) q[m] = *row(m - R);
    for (int s0 = 0; a0 + s0 < a1; s0 += Q) {
#pragma unroll
      for (int s = 0; s < Q; ++s) {
        const int d = s0 + s;  // this step's row is a0 + d
        if (a0 + d >= a1) break;
        if (d + R + PF < a1 - a0 + R) q[(2 * R + PF + s) % Q] = *row(d + R + PF);
        Pack<T> res;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          T v[2 * R + 1];
#pragma unroll
          for (int m = 0; m <= 2 * R; ++m) v[m] = q[(m + s) % Q].v[w];
          res.v[w] = deriv_point<T, R>(v, a.c);
        }
        T* out = dst + d * stride;
        if (c0 + W <= g.nx) {
          *reinterpret_cast<Pack<T>*>(out) = res;
        } else {
#pragma unroll
          for (int w = 0; w < W; ++w)
            if (c0 + w < g.nx) out[w] = res.v[w];
        }
      }
    }
  }
  pdl_trigger();
}

}  // namespace ss
