#pragma once
// Hydro 3D kernels. Every kernel gathers values and calls the point functions of
// hydro3d.hpp; none does arithmetic of its own on the fields, so the variants of one
// method agree bit for bit with each other and with the CPU (this file is compiled
// with -fmad=false: no implicit contraction, as on the host).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "sim/core/box_regions.hpp"
#include "sim/core/cuda_check.cuh"
#include "sim/models/hydro3d/hydro3d.hpp"

namespace ss {

/// The buffers of one RK3 substep: read f (ghosts filled), update rk in place, write out.
template <typename T>
struct HydroBuffers {
  const T* f[kHydroFields];
  T* rk[kHydroFields];
  T* out[kHydroFields];
  T* div;  ///< two-pass method: the divergence field
};

/// What every integration kernel reads besides the buffers.
template <typename T>
struct HydroStep {
  Grid3D g;
  HydroWeights<T> w;
  HydroConstants<T> c;
  int substep;
  T alpha, beta;
  /// An adaptive run: the dt on the device (hydro_take_dt writes it); nullptr: c.dt.
  const T* dt_dev = nullptr;
  __device__ __forceinline__ T dt() const { return dt_dev ? *dt_dev : c.dt; }
};

/// Up to four fields whose ghost zones one launch fills.
template <typename T>
struct HydroFieldList {
  T* p[kHydroFields];
  int count;
};

/// Periodic ghost zone of the listed fields: one thread per ghost cell.
template <typename T>
__global__ void hydro_fill_ghosts(HydroFieldList<T> fields, Grid3D g) {
  const long long cells = hydro_ghost_cells(g);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < cells;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    std::size_t dst, src;
    hydro_ghost_cell(g, e, dst, src);
    for (int f = 0; f < fields.count; ++f) fields.p[f][dst] = fields.p[f][src];
  }
}

/// The RK3 update of the four fields at cell n from the right-hand sides.
template <typename T>
__device__ __forceinline__ void hydro_update(const HydroBuffers<T>& b, const HydroStep<T>& s, std::size_t n, T f0, T u0,
                                             T u1, T u2, T rl, const T (&ru)[3]) {
  const T dt = s.dt();
  hydro_rk3(s.substep, s.alpha, s.beta, dt, rl, f0, b.rk[0][n], b.out[0][n]);
  hydro_rk3(s.substep, s.alpha, s.beta, dt, ru[0], u0, b.rk[1][n], b.out[1][n]);
  hydro_rk3(s.substep, s.alpha, s.beta, dt, ru[1], u1, b.rk[2][n], b.out[2][n]);
  hydro_rk3(s.substep, s.alpha, s.beta, dt, ru[2], u2, b.rk[3][n], b.out[3][n]);
}

// ---- global: one point per thread, every value from global memory -------------------

/// Cells [lo, lo + n) of the interior: the whole grid on one GPU; a rank's box splits its
/// interior into the shells the exchange reads and the core (hydro3d_box_device.cu).
struct HydroRegion {
  int3 lo, n;
};

template <typename T>
__device__ __forceinline__ void hydro_global_cell(const HydroBuffers<T>& b, const HydroStep<T>& s, int i, int j, int k) {
  const std::size_t n = s.g.index(i, j, k);
  const std::ptrdiff_t pitch = s.g.pitch, plane = static_cast<std::ptrdiff_t>(s.g.plane());
  auto at = [&](int f, int di, int dj, int dk) { return __ldg(b.f[f] + n + di + dj * pitch + dk * plane); };
  const HydroPoint<T> p = hydro_gather<T, true>(s.w, at);
  T rl, ru[3];
  hydro_rhs<T, true>(p, s.c, rl, ru);
  hydro_update(b, s, n, at(0, 0, 0, 0), p.u[0], p.u[1], p.u[2], rl, ru);
}

/// One cell per thread over a region; the tiles start at a multiple of 32 cells along x (as
/// on the whole grid), whatever the region's first x, so that a warp's loads stay aligned.
template <typename T>
__global__ void __launch_bounds__(128) hydro_global(HydroBuffers<T> b, HydroStep<T> s, HydroRegion r) {
  const int i = (r.lo.x & ~31) + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = r.lo.y + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (i < r.lo.x || i >= r.lo.x + r.n.x || j >= r.lo.y + r.n.y) return;
  hydro_global_cell(b, s, i, j, r.lo.z + static_cast<int>(blockIdx.z));
}

/// hydro_global over the cells of a region list (a box's shells) in one launch, in tiles
/// shaped to each region (CellRegionList).
template <typename T>
__global__ void __launch_bounds__(128) hydro_global_regions(HydroBuffers<T> b, HydroStep<T> s, CellRegionList list) {
  int i, j, k;
  if (!region_tile_cell(list, blockIdx.x, static_cast<int>(threadIdx.x), i, j, k)) return;
  hydro_global_cell(b, s, i, j, k);
}

// ---- 55pt: a 3D tile plus halo in shared memory, a rolling cache along z (Sect. 4.1) --

/// Tile of the 55-point method: TX x TY x TZ threads, each updating one point of each
/// of EZ consecutive z blocks; the shared block holds TZ + 2R planes of (TX + 2R) x
/// (TY + 2R) values of the four fields, used as a ring along z.
template <typename T>
struct P55Shape {
  static constexpr int TX = 8, TY = 8, TZ = 8, R = kHydroRadius;
  static constexpr int SX = TX + 2 * R, SY = TY + 2 * R, SZ = TZ + 2 * R;
  static constexpr int plane = SX * SY;
  static constexpr std::size_t smem_bytes = sizeof(T) * kHydroFields * SZ * plane;
};

template <typename T>
__global__ void __launch_bounds__(512) hydro_p55(HydroBuffers<T> b, HydroStep<T> s, int ez, HydroRegion region) {
  using S = P55Shape<T>;
  constexpr int R = S::R;
  extern __shared__ unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);  // [field][slot][y][x]
  const Grid3D& g = s.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int tid = (tz * S::TY + ty) * S::TX + tx;
  const int x0 = region.lo.x + static_cast<int>(blockIdx.x) * S::TX, y0 = region.lo.y + static_cast<int>(blockIdx.y) * S::TY;
  const int z_begin = region.lo.z + static_cast<int>(blockIdx.z) * S::TZ * ez;
  const int x_end = region.lo.x + region.n.x, y_end = region.lo.y + region.n.y;
  const std::ptrdiff_t pitch = g.pitch, plane = static_cast<std::ptrdiff_t>(g.plane());
  // Loads planes z (first .. first + count - 1) into their ring slots (z mod SZ).
  auto load = [&](int first, int count) {
    const int total = kHydroFields * count * S::plane;
    for (int e = tid; e < total; e += S::TX * S::TY * S::TZ) {
      const int f = e / (count * S::plane), r = e % (count * S::plane);
      const int dz = r / S::plane, q = r % S::plane, yy = q / S::SX, xx = q % S::SX;
      const int z = first + dz, y = y0 + yy - R, x = x0 + xx - R;
      T v = T(0);
      if (z < g.nz + R && y < g.ny + R && x < g.nx + R) v = __ldg(b.f[f] + g.index(x, y, z));
      const int slot = ((z + R) % S::SZ + S::SZ) % S::SZ;
      sm[(f * S::SZ + slot) * S::plane + yy * S::SX + xx] = v;
    }
  };
  const int z_end = min(region.lo.z + region.n.z, z_begin + S::TZ * ez);
  load(z_begin - R, S::TZ + 2 * R);
  for (int zb = z_begin; zb < z_end; zb += S::TZ) {
    if (zb > z_begin) load(zb + S::TZ + R - S::TZ, S::TZ);  // the TZ planes past the ones kept
    __syncthreads();
    const int i = x0 + tx, j = y0 + ty, k = zb + tz;
    if (i < x_end && j < y_end && k < z_end) {
      int base[2 * R + 1];  // the ring slot of plane k + dk, times the plane size, plus this thread's cell
SS_UNROLL
      for (int m = 0; m < 2 * R + 1; ++m) base[m] = (((k + m) % S::SZ + S::SZ) % S::SZ) * S::plane + (ty + R) * S::SX + tx + R;
      auto at = [&](int f, int di, int dj, int dk) {
        return sm[f * S::SZ * S::plane + base[dk + R] + dj * S::SX + di];
      };
      const HydroPoint<T> p = hydro_gather<T, true>(s.w, at);
      T rl, ru[3];
      hydro_rhs<T, true>(p, s.c, rl, ru);
      hydro_update(b, s, g.index(i, j, k), at(0, 0, 0, 0), p.u[0], p.u[1], p.u[2], rl, ru);
    }
    __syncthreads();
  }
  (void)pitch;
  (void)plane;
}

/// The launches of the single-pass variants that read every ghost from memory (global,
/// 55pt), on any padded grid: the whole grid on one GPU, a rank's box in a distributed run.
inline constexpr int kHydroGlobalBX = 32, kHydroGlobalBY = 4;
inline constexpr int kHydroP55Ez = 4;  ///< z blocks of TZ planes per 55pt thread block

/// The whole interior of `g` as a region.
inline HydroRegion hydro_whole(const Grid3D& g) { return {make_int3(0, 0, 0), make_int3(g.nx, g.ny, g.nz)}; }

template <typename T>
void launch_hydro_global(const HydroBuffers<T>& b, const HydroStep<T>& st, cudaStream_t stream, const HydroRegion& r) {
  if (r.n.x <= 0 || r.n.y <= 0 || r.n.z <= 0) return;
  const int x_span = r.lo.x + r.n.x - (r.lo.x & ~31);
  const dim3 block(kHydroGlobalBX, kHydroGlobalBY);
  const dim3 grid((x_span + kHydroGlobalBX - 1) / kHydroGlobalBX, (r.n.y + kHydroGlobalBY - 1) / kHydroGlobalBY, r.n.z);
  hydro_global<T><<<grid, block, 0, stream>>>(b, st, r);
  SS_CUDA_LAUNCH_CHECK("hydro_global");
}
template <typename T>
void launch_hydro_global(const HydroBuffers<T>& b, const HydroStep<T>& st, cudaStream_t stream) {
  launch_hydro_global(b, st, stream, hydro_whole(st.g));
}

/// The shells' launch: `list` made for kHydroRegionThreads threads a block.
inline constexpr int kHydroRegionThreads = 128;
template <typename T>
void launch_hydro_global_regions(const HydroBuffers<T>& b, const HydroStep<T>& st, const CellRegionList& list,
                                 cudaStream_t stream) {
  if (list.blocks() == 0) return;
  if (list.threads != kHydroRegionThreads) throw Error("launch_hydro_global_regions: a list made for 128 threads");
  hydro_global_regions<T><<<static_cast<unsigned>(list.blocks()), kHydroRegionThreads, 0, stream>>>(b, st, list);
  SS_CUDA_LAUNCH_CHECK("hydro_global_regions");
}

template <typename T>
void launch_hydro_p55(const HydroBuffers<T>& b, const HydroStep<T>& st, cudaStream_t stream, const HydroRegion& r) {
  using S = P55Shape<T>;
  if constexpr (S::smem_bytes > 48 * 1024) {  // double: past the default 48 KB, once per process
    static const bool opted = [] {
      SS_CUDA_CHECK(cudaFuncSetAttribute(hydro_p55<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(S::smem_bytes)));
      return true;
    }();
    (void)opted;
  }
  if (r.n.x <= 0 || r.n.y <= 0 || r.n.z <= 0) return;
  const dim3 block(S::TX, S::TY, S::TZ);
  const dim3 grid((r.n.x + S::TX - 1) / S::TX, (r.n.y + S::TY - 1) / S::TY,
                  (r.n.z + S::TZ * kHydroP55Ez - 1) / (S::TZ * kHydroP55Ez));
  hydro_p55<T><<<grid, block, S::smem_bytes, stream>>>(b, st, kHydroP55Ez, r);
  SS_CUDA_LAUNCH_CHECK("hydro_p55");
}
template <typename T>
void launch_hydro_p55(const HydroBuffers<T>& b, const HydroStep<T>& st, cudaStream_t stream) {
  launch_hydro_p55(b, st, stream, hydro_whole(st.g));
}

// ---- 19pt: two passes, each a 2.5D slab (Sect. 4.2) ----------------------------------

/// The xy tile of the 2.5D kernels: BX x BY threads, a plane of (BX + 2R) x (BY + 2R).
template <int BX_, int BY_>
struct SlabShape {
  static constexpr int BX = BX_, BY = BY_, R = kHydroRadius;
  static constexpr int SX = BX + 2 * R, SY = BY + 2 * R, plane = SX * SY, threads = BX * BY;
};

/// Loads plane z of `field` (tile at x0, y0, halo included) into `dst` (SX x SY):
/// cells past the ghost zone read as 0 (only threads outside the interior use them).
template <typename Shape, typename T>
__device__ __forceinline__ void load_plane(T* dst, const T* field, const Grid3D& g, int x0, int y0, int z, int tid) {
  constexpr int R = Shape::R;
  for (int e = tid; e < Shape::plane; e += Shape::threads) {
    const int yy = e / Shape::SX, xx = e % Shape::SX, y = y0 + yy - R, x = x0 + xx - R;
    dst[e] = (y < g.ny + R && x < g.nx + R) ? __ldg(field + g.index(x, y, z)) : T(0);
  }
}

/// Pass 1 of the 19-point method: div u, and the RK3 update without nu/3 grad div u
/// (eqs 14-16). Each block marches z from z_begin over `planes` planes: the xy planes
/// in shared memory, the z columns in registers.
template <typename T, int BX, int BY>
__global__ void __launch_bounds__(BX * BY) hydro_p19_first(HydroBuffers<T> b, HydroStep<T> s, int planes) {
  using S = SlabShape<BX, BY>;
  constexpr int R = S::R;
  __shared__ T sm[kHydroFields][S::plane];
  const Grid3D& g = s.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY, z_begin = blockIdx.z * planes;
  const int z_end = min(g.nz, z_begin + planes);
  const int i = x0 + tx, j = y0 + ty;
  const bool inside = i < g.nx && j < g.ny;
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());
  T col[kHydroFields][2 * R + 1];  // z column of each field, index dk + R
  if (inside)
    for (int f = 0; f < kHydroFields; ++f)
      for (int m = 0; m < 2 * R; ++m) col[f][m + 1] = __ldg(b.f[f] + g.index(i, j, z_begin - R + m));
  for (int k = z_begin; k < z_end; ++k) {
    for (int f = 0; f < kHydroFields; ++f) {
      load_plane<S>(sm[f], b.f[f], g, x0, y0, k, tid);
      if (inside) {
SS_UNROLL
        for (int m = 0; m < 2 * R; ++m) col[f][m] = col[f][m + 1];
        col[f][2 * R] = __ldg(b.f[f] + g.index(i, j, k + R));
      }
    }
    __syncthreads();
    if (inside) {
      auto at = [&](int f, int di, int dj, int dk) {
        return dk != 0 ? col[f][dk + R] : sm[f][(ty + R + dj) * S::SX + tx + R + di];
      };
      const HydroPoint<T> p = hydro_gather<T, false>(s.w, at);
      T rl, ru[3];
      hydro_rhs<T, false>(p, s.c, rl, ru);
      const std::size_t n = g.index(i, j, k);
      b.div[n] = hydro_divergence(s.w, at);
      hydro_update(b, s, n, col[0][R], p.u[0], p.u[1], p.u[2], rl, ru);
    }
    __syncthreads();
  }
  (void)plane;
}

/// Pass 2 of the 19-point method (eqs 17-18): grad div u from the divergence field
/// (ghosts filled), added to the intermediates and the outputs of the velocity.
template <typename T, int BX, int BY>
__global__ void __launch_bounds__(BX * BY) hydro_p19_second(HydroBuffers<T> b, HydroStep<T> s, int planes) {
  using S = SlabShape<BX, BY>;
  constexpr int R = S::R;
  __shared__ T sm[S::plane];
  const Grid3D& g = s.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY, z_begin = blockIdx.z * planes;
  const int z_end = min(g.nz, z_begin + planes);
  const int i = x0 + tx, j = y0 + ty;
  const bool inside = i < g.nx && j < g.ny;
  const T dt_nu3 = s.dt() * s.c.nu3;
  T col[2 * R + 1];
  if (inside)
    for (int m = 0; m < 2 * R; ++m) col[m + 1] = __ldg(b.div + g.index(i, j, z_begin - R + m));
  for (int k = z_begin; k < z_end; ++k) {
    load_plane<S>(sm, b.div, g, x0, y0, k, tid);
    if (inside) {
SS_UNROLL
      for (int m = 0; m < 2 * R; ++m) col[m] = col[m + 1];
      col[2 * R] = __ldg(b.div + g.index(i, j, k + R));
    }
    __syncthreads();
    if (inside) {
      const T* c = sm + (ty + R) * S::SX + tx + R;
      const T gx = hydro_d1(s.w, c[-3], c[-2], c[-1], c[1], c[2], c[3]);
      const T gy = hydro_d1(s.w, c[-3 * S::SX], c[-2 * S::SX], c[-S::SX], c[S::SX], c[2 * S::SX], c[3 * S::SX]);
      const T gz = hydro_d1(s.w, col[0], col[1], col[2], col[4], col[5], col[6]);
      const std::size_t n = g.index(i, j, k);
      hydro_second_pass(s.beta, dt_nu3, gx, b.rk[1][n], b.out[1][n]);
      hydro_second_pass(s.beta, dt_nu3, gy, b.rk[2][n], b.out[2][n]);
      hydro_second_pass(s.beta, dt_nu3, gz, b.rk[3][n], b.out[3][n]);
    }
    __syncthreads();
  }
}

// ---- stream25d (ours): one pass, a ring of xy planes of u in shared memory ------------

/// The ring of the single-pass streaming kernel: RING = 8 planes of u_x, u_y, u_z (tile
/// plus halo: the 2R + 1 the stencil reads and the one arriving), two planes of ln rho
/// (its z derivative comes from a register column). Planes arrive by cp.async one plane
/// ahead of the one computed, from the periodic images directly (the kernel reads no
/// ghost cell, so no ghost-zone launch is needed before it).
template <typename T, int BX_, int BY_>
struct StreamShape : SlabShape<BX_, BY_> {
  using Base = SlabShape<BX_, BY_>;
  static constexpr int RING = 8;
  static_assert(RING >= 2 * Base::R + 2 && (RING & (RING - 1)) == 0, "the ring holds the stencil's planes and the next");
  static constexpr int planes = 3 * RING + 2;
  static constexpr int loads = (Base::plane + Base::threads - 1) / Base::threads;  ///< plane cells per thread
  static constexpr std::size_t smem_bytes = sizeof(T) * planes * Base::plane;
};

/// Offset of interior cell (i, j, 0) from interior cell (0, 0, 0), i and j taken
/// periodically (any integer).
__device__ __forceinline__ std::ptrdiff_t periodic_xy(const Grid3D& g, int i, int j) {
  i = ((i % g.nx) + g.nx) % g.nx;
  j = ((j % g.ny) + g.ny) % g.ny;
  return static_cast<std::ptrdiff_t>(j) * g.pitch + i;
}
/// Offset of interior plane k (taken periodically) from plane 0.
__device__ __forceinline__ std::ptrdiff_t periodic_z(const Grid3D& g, int k) {
  k = k < 0 ? k + g.nz : (k >= g.nz ? k - g.nz : k);
  return static_cast<std::ptrdiff_t>(k) * static_cast<std::ptrdiff_t>(g.plane());
}

template <typename T, int BX, int BY>
__global__ void __launch_bounds__(BX * BY) hydro_stream25d(HydroBuffers<T> b, HydroStep<T> s, int planes) {
  using S = StreamShape<T, BX, BY>;
  constexpr int R = S::R, RING = S::RING, L = S::loads;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* ring = reinterpret_cast<T*>(smem_raw);  // [u component][slot][y][x], then ln rho's two planes
  T* lnrho = ring + 3 * RING * S::plane;
  const Grid3D& g = s.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY, z_begin = blockIdx.z * planes;
  const int z_end = min(g.nz, z_begin + planes);
  const int i = x0 + tx, j = y0 + ty;
  const bool inside = i < g.nx && j < g.ny;
  const std::size_t origin = g.index(0, 0, 0);
  // The plane cells this thread copies: their offsets within a plane (periodic images)
  // and in the shared plane.
  std::ptrdiff_t src[L];
  bool mine[L];
SS_UNROLL
  for (int m = 0; m < L; ++m) {
    const int e = tid + m * S::threads;
    mine[m] = e < S::plane;
    const int yy = e / S::SX, xx = e % S::SX;
    src[m] = periodic_xy(g, x0 + xx - R, y0 + yy - R);
  }
  auto fetch = [&](T* dst, const T* field, int z) {  // queues plane z of `field` into dst
    const T* base = field + origin + periodic_z(g, z);
SS_UNROLL
    for (int m = 0; m < L; ++m)
      if (mine[m]) __pipeline_memcpy_async(dst + tid + m * S::threads, base + src[m], sizeof(T));
  };
  auto slot = [](int z) { return (z + 2 * RING) & (RING - 1); };
  for (int z = z_begin - R; z <= z_begin + R; ++z)
    for (int c = 0; c < 3; ++c) fetch(ring + (c * RING + slot(z)) * S::plane, b.f[c + 1], z);
  fetch(lnrho + (z_begin & 1) * S::plane, b.f[0], z_begin);
  __pipeline_commit();
  const std::ptrdiff_t own = static_cast<std::ptrdiff_t>(origin) + periodic_xy(g, i, j);
  T col[2 * R + 1];  // ln rho at (i, j, k + dk), index dk + R
  if (inside)
SS_UNROLL
    for (int m = 0; m < 2 * R; ++m) col[m + 1] = __ldg(b.f[0] + own + periodic_z(g, z_begin - R + m));
  __pipeline_wait_prior(0);
  __syncthreads();
  for (int k = z_begin; k < z_end; ++k) {
    if (k + 1 < z_end) {  // the next plane's arrivals, while this one is computed
      for (int c = 0; c < 3; ++c) fetch(ring + (c * RING + slot(k + R + 1)) * S::plane, b.f[c + 1], k + R + 1);
      fetch(lnrho + ((k + 1) & 1) * S::plane, b.f[0], k + 1);
    }
    __pipeline_commit();
    if (inside) {
SS_UNROLL
      for (int m = 0; m < 2 * R; ++m) col[m] = col[m + 1];
      col[2 * R] = __ldg(b.f[0] + own + periodic_z(g, k + R));
      const int centre = (ty + R) * S::SX + tx + R;
      const T* rho_plane = lnrho + (k & 1) * S::plane + centre;
      int base[2 * R + 1];  // the ring slot of plane k + dk, times the plane size, plus this thread's cell
SS_UNROLL
      for (int m = 0; m < 2 * R + 1; ++m) base[m] = slot(k + m - R) * S::plane + centre;
      auto at = [&](int f, int di, int dj, int dk) {
        if (f == 0) return dk != 0 ? col[dk + R] : rho_plane[dj * S::SX + di];
        return ring[(f - 1) * RING * S::plane + base[dk + R] + dj * S::SX + di];
      };
      const HydroPoint<T> p = hydro_gather<T, true>(s.w, at);
      T rl, ru[3];
      hydro_rhs<T, true>(p, s.c, rl, ru);
      hydro_update(b, s, g.index(i, j, k), col[R], p.u[0], p.u[1], p.u[2], rl, ru);
    }
    __pipeline_wait_prior(0);
    __syncthreads();
  }
}

/// |u|^2 max (as the bits of a non-negative float, which order like the floats) and a
/// non-finite flag over the interior, into acc[0] and acc[1]; |u|^2 is taken in T and
/// rounded to float, as hydro_max_speed on the host.
template <typename T>
__global__ void hydro_max_speed2(const T* f0, const T* f1, const T* f2, const T* f3, Grid3D g, unsigned* acc) {
  float best = 0;
  bool bad = false;
  const long long cells = static_cast<long long>(g.nx) * g.ny * g.nz;
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < cells;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(c % g.nx), j = static_cast<int>((c / g.nx) % g.ny), k = static_cast<int>(c / (static_cast<long long>(g.nx) * g.ny));
    const std::size_t n = g.index(i, j, k);
    const float u2 = static_cast<float>(f1[n] * f1[n] + f2[n] * f2[n] + f3[n] * f3[n]);
    if (!isfinite(u2) || !isfinite(static_cast<float>(f0[n]))) bad = true;
    else best = fmaxf(best, u2);
  }
  for (int o = 16; o > 0; o >>= 1) {
    best = fmaxf(best, __shfl_xor_sync(0xffffffffu, best, o));
    bad = __any_sync(0xffffffffu, bad);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(acc, __float_as_uint(best));
    if (bad) atomicOr(acc + 1, 1u);
  }
}

/// An adaptive run's dt from the |u|^2 max of hydro_max_speed2 (acc), as HostHydro3D's:
/// clock->set_dt(rule.dt_for(u2max), steps) and dt = that dt in T. A non-finite flow keeps
/// its dt (the health check reports it). One thread.
template <typename T>
__global__ void hydro_take_dt(const unsigned* acc, HydroDtRule rule, long steps, HydroClock* clock, T* dt) {
  if (acc[1] == 0) clock->set_dt(rule.dt_for(__uint_as_float(acc[0])), steps);
  *dt = static_cast<T>(clock->dt);
}

/// The forcing's dt N f_k of this step for the dt on the device (as HostHydro3D::force
/// computes it on the host). One thread.
template <typename T>
__global__ void hydro_forcing_amps(HydroForcingStep fs, const HydroClock* clock, T* amp) {
  for (int a = 0; a < 3; ++a) amp[a] = static_cast<T>(fs.amp_dt(clock->dt, a));
}

/// sqrt(rho) u_a of the interior into a dense array (x fastest), for the spectrum's FFT.
template <typename T>
__global__ void hydro_pack_momentum(const T* lnrho, const T* ua, Grid3D g, T* dense) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
  if (i >= g.nx || j >= g.ny) return;
  const std::size_t n = g.index(i, j, k);
  dense[(static_cast<std::size_t>(k) * g.ny + j) * g.nx + i] = sqrt(exp(lnrho[n])) * ua[n];
}

/// Adds 1/2 |v|^2 / N^2 of each r2c coefficient (counted twice where its conjugate is
/// not stored) to its shell round(|k|) of e (shells 0 .. kmax), as hydro_energy_spectrum.
template <typename C>
__global__ void hydro_bin_spectrum(const C* v, int nx, int ny, int nz, int kmax, double norm, double* e) {
  const int half = nx / 2 + 1;
  const long long count = static_cast<long long>(nz) * ny * half;
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < count;
       c += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(c % half), j = static_cast<int>((c / half) % ny), k = static_cast<int>(c / (static_cast<long long>(half) * ny));
    // wavenumbers in units of 2 pi / box (box = nx h), as hydro_energy_spectrum
    const double kx = i, ky = (j <= ny / 2 ? j : j - ny) * (static_cast<double>(nx) / ny),
                 kz = (k <= nz / 2 ? k : k - nz) * (static_cast<double>(nx) / nz);
    const double kk = sqrt(kx * kx + ky * ky + kz * kz);
    const long long shell = llround(kk);
    if (shell > kmax) continue;
    const double weight = (i == 0 || (nx % 2 == 0 && i == half - 1)) ? 1.0 : 2.0;
    const double re = v[c].x, im = v[c].y;
    atomicAdd(e + shell, 0.5 * weight * (re * re + im * im) * norm);
  }
}

// ---- forcing, kicks and views -----------------------------------------------------------

/// The forcing on the interior of the fields' grid `fg`, whose cell (0, 0, 0) is cell `lo`
/// of the whole grid `g` (the tables' grid): fg = g and lo = 0 on one GPU, a rank's box in
/// a distributed run (the tables read at global positions, as HostHydro3DBox does).
template <typename T>
__global__ void hydro_force(T* ux, T* uy, T* uz, Grid3D fg, Grid3D g, int3 lo, const T* tab, const T* amp_dev, T a0,
                            T a1, T a2, T cph, T sph) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
  if (i >= fg.nx || j >= fg.ny) return;
  const std::size_t n = fg.index(i, j, k);
  const T amp[3] = {amp_dev ? amp_dev[0] : a0, amp_dev ? amp_dev[1] : a1, amp_dev ? amp_dev[2] : a2};
  hydro_force_point(tab, g, lo.x + i, lo.y + j, lo.z + k, amp, cph, sph, ux[n], uy[n], uz[n]);
}

/// Adds a precomputed velocity increment (interior, x fastest) to u.
template <typename T>
__global__ void hydro_add_interior(T* ux, T* uy, T* uz, Grid3D g, const T* du) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
  if (i >= g.nx || j >= g.ny) return;
  const std::size_t n = g.index(i, j, k), o = (static_cast<std::size_t>(k) * g.ny + j) * g.nx + i, p = g.points();
  ux[n] += du[o];
  uy[n] += du[p + o];
  uz[n] += du[2 * p + o];
}

/// Quantity q (kHydroQuantities) on slice `axis` at `index` into dst (nu x nv, u fastest).
template <typename T>
__global__ void hydro_slice_quantity(const T* f0, const T* f1, const T* f2, const T* f3, Grid3D g, HydroWeights<T> w,
                                     int q, int axis, int index, float* dst, int nu, int nv) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
  if (u >= nu || v >= nv) return;
  const int i = axis == 2 ? index : u, j = axis == 0 ? v : (axis == 1 ? index : u), k = axis == 0 ? index : v;
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(g.index(i, j, k));
  const std::ptrdiff_t st[3] = {1, g.pitch, static_cast<std::ptrdiff_t>(g.plane())};
  const T* f[4] = {f0, f1, f2, f3};
  auto d = [&](int field, int a) {
    const T* c = f[field] + n;
    const std::ptrdiff_t s = st[a];
    return hydro_d1(w, c[-3 * s], c[-2 * s], c[-s], c[s], c[2 * s], c[3 * s]);
  };
  T r;
  switch (q) {
    case 0: r = f0[n]; break;
    case 1: r = exp(f0[n]); break;
    case 2: r = sqrt(f1[n] * f1[n] + f2[n] * f2[n] + f3[n] * f3[n]); break;
    case 3: r = f1[n]; break;
    case 4: r = f2[n]; break;
    case 5: r = f3[n]; break;
    case 6: {
      const T cx = d(3, 1) - d(2, 2), cy = d(1, 2) - d(3, 0), cz = d(2, 0) - d(1, 1);
      r = sqrt(cx * cx + cy * cy + cz * cz);
      break;
    }
    default: r = hydro_sum3(d(1, 0), d(2, 1), d(3, 2));
  }
  dst[static_cast<std::size_t>(v) * nu + u] = static_cast<float>(r);
}

}  // namespace ss
