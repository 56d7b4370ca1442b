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
#include <cuda_pipeline.h>

#include "sim/core/cuda_check.cuh"
#include "sim/core/pack.cuh"
#include "sim/core/pdl.cuh"
#include "sim/models/heat2d/heat2d.hpp"

namespace ss {

template <typename T>
struct Heat2DStepArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid2D g;
  T c;  // alpha dt / h^2
  int block_rows_y;  // blocks needed along y (may exceed gridDim.y)
  // stream: block row by walks strip block_rows_y - 1 - by, so that the first blocks take
  // the last strips. The solver sets it every other step, so that a step first reads the
  // rows the step before wrote last, while L2 still holds them; the bits are the same.
  bool strips_from_last = false;
};

template <typename T>
__device__ __forceinline__ void store_point(const Heat2DStepArgs<T>& a, int i, int j, T v) {
  a.out[a.g.index(i, j)] = v;
}

// The boundary step after every interior update: one thread per ghost frame cell.
template <typename T>
__global__ void heat2d_fill_ghosts(T* f, Grid2D g, const GhostRule<T>* rule_ptr) {
  const GhostRule<T>& rule = *rule_ptr;
  const long long n = ghost_frame_cells(g);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_ghost_frame_cell(f, g, e, rule);
}

// The boundary step restricted to the ghost images of interior region
// [ib, ie) x [jb, je), for kernels that fuse it into their epilogue (stream),
// after their last store and behind a block-uniform branch. It reads the rule in
// place through a pointer to device memory: a by-value copy (kernel parameter or
// local) went to the stack, and an out-of-line call cost the hot loop ~5%.
template <typename T>
__device__ __forceinline__ void fill_ghosts_of_region(T* f, Grid2D g, const GhostRule<T>* rule_ptr, int ib, int ie,
                                                   int jb, int je) {
  const GhostRule<T>& rule = *rule_ptr;  // in place: a local copy would go to the stack
  const int t = threadIdx.x, nt = blockDim.x;
  for (int e = t; e < 2 * kGhost * (je - jb); e += nt) {  // left and right frame
    const int k = e % (2 * kGhost), j = jb + e / (2 * kGhost);
    const int i = k < kGhost ? k : g.nx - 2 * kGhost + k;
    if (i >= ib && i < ie) write_ghost_x(f, g, i, j, rule);
  }
  for (int e = t; e < 2 * kGhost * (ie - ib); e += nt) {  // bottom and top frame
    const int k = e / (ie - ib), i = ib + e % (ie - ib);
    const int j = k < kGhost ? k : g.ny - 2 * kGhost + k;
    if (j >= jb && j < je) write_ghost_y(f, g, i, j, rule);
  }
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
// 2D register streaming. Each thread owns one 16-byte pack of columns (4 floats or
// 2 doubles) and walks it along a strip of rows with the column's values in a
// register queue, loaded straight from global memory kPF rows ahead. The x
// neighbours come through shared memory: each warp has a ring of rows into which
// its edge lanes copy the x halo packs with cp.async (as far ahead as the column
// loads) and every lane stores its centre pack when its row comes up; the window
// is then read back as 16-byte shared loads.
//
// Strips are short (heat2d_stream_strip_rows: 12 rows, 20 on an H200), so the grid
// holds many more blocks than fit at once and the block scheduler evens out the SMs.
// On an H100 at 8192^2,
// order 8, float, the same kernel gave 0.98-1.00 of copy with strips of 10-12
// rows, 0.96-0.98 with 16, 0.92-0.94 with 32, and 0.84 in one wave of 167-row
// strips, although each strip reads 2R rows twice (docs/perf.md, session 5;
// STENCILSCOPE_STREAM_ROWS sets the height for tests/device/tune-stream.sh).
// The version before filled the column through the shared ring with cp.async;
// it stayed at 0.84-0.86 at every strip height, and tests/device/strip-copy.cu
// shows why: a strip-walking copy moves 0.91 of a flat copy through cp.async,
// 0.92 through the bulk copy engine, 0.94-0.97 through plain loads.
inline constexpr int kStreamThreads = 128;

// Rows loaded ahead and blocks per SM the register budget is cut for: radius 3-4
// 8 rows ahead at four blocks of 128 threads (up to 128 registers: 0.995 at
// 8192^2), radius 1-2 4 rows ahead at six blocks (0.98 at order 2).
//
// PX, packs per lane (session 15, for the H200, where the step is bound in the SM):
// with PX = 2 each lane walks two neighbouring packs, so the per-row work that does
// not grow with the outputs (the halo loads, the pipeline's commit and wait, the
// warp barrier, the pointer steps) serves 8 floats instead of 4. Its queue is twice
// as long, so it loads 4 rows ahead in blocks of 64 threads (2 warps, the ring
// within the static shared memory), at least 6 blocks per SM (up to 168 registers).
template <int R, int PX = 1>
inline constexpr int kStreamAhead = PX == 1 ? (R >= 3 ? 8 : 4) : 4;
template <int R, int PX = 1>
inline constexpr int kStreamMinBlocks = PX == 1 ? (R >= 3 ? 4 : 6) : 6;
template <int PX>
inline constexpr int kStreamThreadsFor = PX == 1 ? kStreamThreads : 64;

template <typename T, int R, int kThreads, int PX = 1, int kPF = kStreamAhead<R, PX>>
__global__ void __launch_bounds__(kThreads, kStreamMinBlocks<R, PX>)
    heat2d_step_stream(Heat2DStepArgs<T> a, const GhostRule<T>* rule) {
  constexpr int W = Pack<T>::n;
  constexpr int kWarps = kThreads / 32;
  constexpr int TW = kThreads * W * PX;
  constexpr int WW = 32 * W * PX;
  constexpr int HV = (R + W - 1) / W, H = HV * W;
  constexpr int LW = WW + 2 * H;
  constexpr int Q = 2 * R + 1 + kPF;  // queue length: positions t - R .. t + R + kPF
  constexpr int AH = R + kPF;         // step t loads walk position t + AH
  // Ring slot p % Q holds row p's x halo and, from step p on, its centre packs.
  __shared__ alignas(16) T ring_all[kWarps][Q][LW];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int nx = a.g.nx, ny = a.g.ny;
  const int i0 = blockIdx.x * TW;
  const int s0 = i0 + warp * WW;           // first column of this warp's segment
  const int c = s0 + lane * W * PX;        // first column of this thread
  // column(p): some interior point reads the columns of own pack p
  auto column = [c, nx](int p) { return c + p * W < nx + R; };
  int halo_c = -2 * kGhost - W;            // lanes 0..HV-1 fetch the left halo, the last HV the right
  if (lane < HV) halo_c = s0 - H + lane * W;
  if (lane >= 32 - HV) halo_c = s0 + WW + (lane - (32 - HV)) * W;
  const bool halo = halo_c >= -H && halo_c < nx + R;
  T* const own_slot = &ring_all[warp][0][H + lane * W * PX];  // own pack 0 in slot 0; slot k is k * LW further
  T* const halo_slot = &ring_all[warp][0][lane < HV ? lane * W : H + WW + (lane - (32 - HV)) * W];
  const T* const window = &ring_all[warp][0][lane * W * PX];  // columns c - H .. c + PX W + H - 1
  using P = Pack<T>;

  const std::ptrdiff_t pitch = a.g.pitch;
  pdl_wait();  // the fields from here on (sim/core/pdl.cuh: the set-up above overlaps the previous step)
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
    const int strip = a.strips_from_last ? a.block_rows_y - 1 - by : by;
    const int j0 = static_cast<int>(static_cast<long long>(strip) * ny / a.block_rows_y);
    const int j1 = static_cast<int>(static_cast<long long>(strip + 1) * ny / a.block_rows_y);
    // Step t of the walk updates row first + dir t. Odd strips walk down (from the
    // long-strip version, where two neighbours then read their shared 2R rows at
    // about the same time; the queue holds its column upside down, which the
    // stencil's symmetric pairs do not see).
    const int dir = strip % 2 ? -1 : 1;
    const int rows = j1 - j0, first = dir > 0 ? j0 : j1 - 1;
    const std::ptrdiff_t step = dir * pitch;
    const T* src = a.in + a.g.index(c, first);  // walk position 0
    const T* hsrc = src + (halo_c - c);
    __syncwarp();  // the previous strip is done with the ring
#pragma unroll
    for (int d = 0; d < AH; ++d) {
      if (halo && d < rows) __pipeline_memcpy_async(halo_slot + d * LW, hsrc + d * step, 16);
      __pipeline_commit();
    }
    P q[PX][Q];  // q[p][(k + s) % Q]: pack p at position t + k - R at unrolled step s (the queue rotates by renaming)
#pragma unroll
    for (int p = 0; p < PX; ++p) {
      if (column(p)) {
#pragma unroll
        for (int k = 0; k < 2 * R + kPF; ++k)
          if (k - R < rows + R) q[p][k] = *reinterpret_cast<const P*>(src + p * W + (k - R) * step);
      }
    }
    const T* next = src + AH * step;  // position t + AH
    const T* hnext = hsrc + AH * step;
    T* dst = a.out + a.g.index(c, first);
    for (int tb = 0; tb < rows; tb += Q) {  // tb % Q == 0: every slot and queue index below is a constant
#pragma unroll
      for (int s = 0; s < Q; ++s) {
        const int t = tb + s;
        if (t >= rows) break;
#pragma unroll
        for (int p = 0; p < PX; ++p)
          if (column(p) && t + AH < rows + R) q[p][(2 * R + kPF + s) % Q] = *reinterpret_cast<const P*>(next + p * W);
        if (halo && t + AH < rows) __pipeline_memcpy_async(halo_slot + ((s + AH) % Q) * LW, hnext, 16);
        __pipeline_commit();
        next += step;
        hnext += step;
#pragma unroll
        for (int p = 0; p < PX; ++p) *reinterpret_cast<P*>(own_slot + s * LW + p * W) = q[p][(R + s) % Q];
        __pipeline_wait_prior(AH);  // this lane's halo of position t
        __syncwarp();               // ... and every lane's centre pack
        T win[PX * W + 2 * H];
#pragma unroll
        for (int v = 0; v < HV; ++v) {
          const P l = *reinterpret_cast<const P*>(window + s * LW + v * W);
          const P r = *reinterpret_cast<const P*>(window + s * LW + H + PX * W + v * W);
#pragma unroll
          for (int w = 0; w < W; ++w) {
            win[v * W + w] = l.v[w];
            win[H + PX * W + v * W + w] = r.v[w];
          }
        }
#pragma unroll
        for (int p = 0; p < PX; ++p)
#pragma unroll
          for (int w = 0; w < W; ++w) win[H + p * W + w] = q[p][(R + s) % Q].v[w];
#pragma unroll
        for (int p = 0; p < PX; ++p) {
          P out;
#pragma unroll
          for (int w = 0; w < W; ++w) {
            T row[2 * R + 1], col[2 * R + 1];
#pragma unroll
            for (int k = 0; k <= 2 * R; ++k) {
              row[k] = win[H + p * W + w + k - R];
              col[k] = q[p][(k + s) % Q].v[w];
            }
            out.v[w] = heat2d_point<T, R>(row, col, a.c, a.c);
          }
          const int cp = c + p * W;
          if (cp + W <= nx) {
            *reinterpret_cast<P*>(dst + p * W) = out;
          } else if (cp < nx) {
#pragma unroll
            for (int w = 0; w < W; ++w)
              if (cp + w < nx) dst[p * W + w] = out.v[w];
          }
        }
        dst += step;
      }
    }
    __pipeline_wait_prior(0);
    // The boundary step, fused: only blocks whose region has ghost images write them.
    const int ie = min(i0 + TW, nx);
    if (i0 < kGhost || ie > nx - kGhost || j0 < kGhost || j1 > ny - kGhost) {
      __syncthreads();  // the block's stores are visible to the whole block
      fill_ghosts_of_region(a.out, a.g, rule, i0, ie, j0, j1);
    }
  }
  pdl_trigger();
}

}  // namespace ss
