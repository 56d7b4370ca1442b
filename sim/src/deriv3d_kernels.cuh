#pragma once
// The deriv3d kernel family, templated on value type, stencil radius and axis.
// Every variant gathers the 2R+1 values along the axis its own way and calls
// deriv_point, so all write bitwise-identical derivatives:
//   global  - one point per thread, neighbours straight from global memory
//   spencil - the posts' small pencils: a tile of 4 whole pencils along the axis
//             in shared memory, periodic images copied within the tile,
//             coefficients in constant memory (64x4 at 64^3)
//   lpencil - the posts' large pencils: 32 whole pencils per tile (64x32 at 64^3)
//   stream  - ours. x: each thread owns one 16-byte pack and reads its window as
//             16-byte packs (neighbours' packs come from L1), several rows per
//             thread with all loads issued first. y and z: each thread owns one
//             16-byte pack column and marches along the axis with the 2R+1 packs
//             in a register queue, loads issued kPrefetch rows ahead; strips
//             along the axis chosen at launch to fill the GPU. Any size.
// The pencils hold a whole axis in one block, so they stop at 256 points per
// axis (1024 threads); the launcher says so instead of launching.
#include "cuda_check.cuh"
#include "stencilscope/deriv3d.hpp"

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
template <typename T>
struct alignas(16) Pack16 {
  static constexpr int n = 16 / sizeof(T);
  T v[n];
};

inline constexpr int kStreamXThreadsX = 32, kStreamXThreadsY = 4, kStreamXRows = 4;

// x: thread (tx, ty) owns pack px of rows r = row_block * 16 + ty + 4 m, m < kStreamXRows.
template <typename T, int R>
__global__ void __launch_bounds__(kStreamXThreadsX* kStreamXThreadsY) deriv3d_stream_x(Deriv3DArgs<T> a) {
  constexpr int W = Pack16<T>::n;
  constexpr int HV = (R + W - 1) / W;  // halo packs per side
  constexpr int NP = 2 * HV + 1;       // packs in a thread's window
  constexpr int RB = kStreamXThreadsY * kStreamXRows;
  const Grid3D& g = a.g;
  const long long rows = static_cast<long long>(g.ny) * g.nz;
  const int packs = (g.nx + W - 1) / W;
  for (int px = blockIdx.y * kStreamXThreadsX + threadIdx.x; px < packs; px += gridDim.y * kStreamXThreadsX) {
    const int c0 = px * W;
    for (long long rb = blockIdx.x; rb * RB < rows; rb += gridDim.x) {
      Pack16<T> win[kStreamXRows][NP];
#pragma unroll
      for (int m = 0; m < kStreamXRows; ++m) {
        const long long r = rb * RB + threadIdx.y + kStreamXThreadsY * m;
        if (r < rows) {
          const int j = static_cast<int>(r % g.ny), k = static_cast<int>(r / g.ny);
          const Pack16<T>* p = reinterpret_cast<const Pack16<T>*>(a.in + g.index(c0 - HV * W, j, k));
#pragma unroll
          for (int q = 0; q < NP; ++q) win[m][q] = p[q];
        }
      }
#pragma unroll
      for (int m = 0; m < kStreamXRows; ++m) {
        const long long r = rb * RB + threadIdx.y + kStreamXThreadsY * m;
        if (r >= rows) break;
        const int j = static_cast<int>(r % g.ny), k = static_cast<int>(r / g.ny);
        Pack16<T> res;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          T v[2 * R + 1];
#pragma unroll
          for (int q = 0; q <= 2 * R; ++q) {
            constexpr int base = HV * W - R;
            const int e = base + w + q;  // compile-time after unrolling
            v[q] = win[m][e / W].v[e % W];
          }
          res.v[w] = deriv_point<T, R>(v, a.c);
        }
        T* dst = a.out + g.index(c0, j, k);
        if (c0 + W <= g.nx) {
          *reinterpret_cast<Pack16<T>*>(dst) = res;
        } else {
#pragma unroll
          for (int w = 0; w < W; ++w)
            if (c0 + w < g.nx) dst[w] = res.v[w];
        }
      }
    }
  }
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
  constexpr int W = Pack16<T>::n;
  constexpr int PF = kStreamPrefetch<T>;
  constexpr int Q = 2 * R + 1 + PF;
  const Grid3D& g = a.g;
  const int n = A == 1 ? g.ny : g.nz;
  const int n_other = A == 1 ? g.nz : g.ny;
  const std::ptrdiff_t stride = axis_stride<A>(g);
  const int px = blockIdx.x * kStreamYZThreadsX + threadIdx.x;
  const int c0 = px * W;
  if (c0 >= g.nx) return;
  const int a0 = blockIdx.z * strip;
  const int a1 = min(a0 + strip, n);
  for (int o = blockIdx.y * kStreamYZThreadsY + threadIdx.y; o < n_other; o += gridDim.y * kStreamYZThreadsY) {
    const T* src = a.in + (A == 1 ? g.index(c0, a0, o) : g.index(c0, o, a0));  // row a0
    T* dst = a.out + (A == 1 ? g.index(c0, a0, o) : g.index(c0, o, a0));
    auto row = [&](int d) { return reinterpret_cast<const Pack16<T>*>(src + d * stride); };  // row a0 + d
    Pack16<T> q[Q];
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
        Pack16<T> res;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          T v[2 * R + 1];
#pragma unroll
          for (int m = 0; m <= 2 * R; ++m) v[m] = q[(m + s) % Q].v[w];
          res.v[w] = deriv_point<T, R>(v, a.c);
        }
        T* out = dst + d * stride;
        if (c0 + W <= g.nx) {
          *reinterpret_cast<Pack16<T>*>(out) = res;
        } else {
#pragma unroll
          for (int w = 0; w < W; ++w)
            if (c0 + w < g.nx) out[w] = res.v[w];
        }
      }
    }
  }
}

}  // namespace ss
