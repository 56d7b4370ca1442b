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

#include "cuda_check.cuh"
#include "pack.cuh"
#include "stencilscope/heat2d.hpp"

namespace ss {

template <typename T>
struct Heat2DStepArgs {
  const T* __restrict__ in;
  T* __restrict__ out;
  Grid2D g;
  T c;  // alpha dt / h^2
  int block_rows_y;  // blocks needed along y (may exceed gridDim.y)
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
// 2 doubles) and walks them along y with the 2R+1 rows of its columns in a
// register queue. Rows arrive through a ring of kStreamRing rows in shared
// memory, fetched kStreamAhead rows ahead with cp.async: the bytes in flight per
// SM then no longer depend on registers, which is what kept the first
// register-prefetch version at 0.62 of copy (ncu: 22% occupancy at 96 registers,
// DRAM 47% busy). The ring's centre row also gives the x neighbours. Every warp
// has its own ring and fetches its own x halo, so warps never wait for each
// other: a block-wide barrier per row left each SM idle 14% of the time (ncu on an
// H100: 0.48 issued warps per scheduler). The grid spans the width in tiles of
// kStreamThreads * kPack columns and the height in a.block_rows_y strips whose
// heights differ by one row at most (as many as every block being resident at
// once allows; strips rounded up to 16 rows left one short strip and 40 of 132
// SMs with a block less, ncu: SMs active 84% of the kernel). Even strips walk up,
// odd strips down: two neighbouring strips then reach the 2R rows they both read
// at the same time (both at their start or both at their end), so that the second
// reader may find them in L2 (ncu, walking all strips up: 7% of the field read
// twice). On an H100 at 8192^2 this did not move the copy ratio beyond the
// run-to-run spread (0.823-0.827, against 0.812-0.842 before); not profiled yet.
// The queue then holds its column upside down, which the stencil's symmetric
// pairs (col[R - k] + col[R + k]) do not see.
inline constexpr int kStreamThreads = 128;
inline constexpr int kStreamAhead = 8;
inline constexpr int kStreamRing = 16;  // >= R + kStreamAhead + 1, a power of two
static_assert(kStreamRing >= kMaxRadius + kStreamAhead + 1 && (kStreamRing & (kStreamRing - 1)) == 0);

// Six 128-thread blocks per SM (80 registers): left to itself the compiler took 90
// for the two walking directions, and one block per SM less.
template <typename T, int R, int kThreads, int kAhead = kStreamAhead>
__global__ void __launch_bounds__(kThreads, 768 / kThreads)
    heat2d_step_stream(Heat2DStepArgs<T> a, const GhostRule<T>* rule) {
  static_assert(kStreamRing >= R + kAhead + 1);
  constexpr int W = Pack<T>::n;
  constexpr int kWarps = kThreads / 32;
  constexpr int TW = kThreads * W;         // block tile width in columns
  constexpr int WW = 32 * W;               // warp segment width in columns
  constexpr int HV = (R + W - 1) / W;      // halo vectors per side
  constexpr int H = HV * W;                // halo columns per side
  constexpr int LW = WW + 2 * H;           // ring row width
  __shared__ alignas(16) T ring_all[kWarps][kStreamRing][LW];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto& ring = ring_all[warp];
  const int nx = a.g.nx, ny = a.g.ny;
  const int i0 = blockIdx.x * TW;
  const int s0 = i0 + warp * WW;           // first column of this warp's segment
  const int c = s0 + lane * W;             // first column of this thread
  const bool column = c < nx + R;          // some interior point reads these columns
  int halo_c = -2 * kGhost - W;            // lanes 0..HV-1 fetch the left halo, the last HV the right
  if (lane < HV) halo_c = s0 - H + lane * W;
  if (lane >= 32 - HV) halo_c = s0 + WW + (lane - (32 - HV)) * W;
  const bool halo = halo_c >= -H && halo_c < nx + R;
  const int halo_slot = lane < HV ? lane * W : H + WW + (lane - (32 - HV)) * W;

  auto global_pack = [&](int col, int j) { return reinterpret_cast<const Pack<T>*>(a.in + a.g.index(col, j)); };

  constexpr int Q = 2 * R + 1;            // queue length
  constexpr int WIN = W + 2 * H;           // x window of one thread: its columns plus halo
  const std::ptrdiff_t pitch = a.g.pitch;
  for (int by = blockIdx.y; by < a.block_rows_y; by += gridDim.y) {
    const int j0 = static_cast<int>(static_cast<long long>(by) * ny / a.block_rows_y);
    const int j1 = static_cast<int>(static_cast<long long>(by + 1) * ny / a.block_rows_y);
    // Step t of the walk updates row first + dir t; the ring holds walk positions
    // 0 .. rows + R - 1 (slot t % kStreamRing), the queue positions t - R .. t + R.
    auto walk = [&]<int dir>() {
      const int rows = j1 - j0, first = dir > 0 ? j0 : j1 - 1;
      const std::ptrdiff_t step = dir * pitch;
      const T* col_src = a.in + a.g.index(c, first);
      const std::ptrdiff_t halo_off = halo_c - c;
      // Starts the copy of walk position t into the ring (one cp.async group, possibly empty).
      auto fetch_row = [&](int t) {
        if (t < rows + R) {
          T* slot = ring[t & (kStreamRing - 1)];
          const T* from = col_src + t * step;
          if (column) __pipeline_memcpy_async(slot + H + lane * W, from, 16);
          if (halo) __pipeline_memcpy_async(slot + halo_slot, from + halo_off, 16);
        }
        __pipeline_commit();
      };
      __syncwarp();                          // the previous strip is done with the ring
  #pragma unroll
      for (int d = 0; d < R + kAhead; ++d) fetch_row(d);
      // q[(k + s) % Q] holds walk position t + k - R at step s of an unrolled group
      // of Q steps, so the queue rotates by renaming instead of by moves.
      Pack<T> q[Q];
      if (column) {
  #pragma unroll
        for (int k = 0; k < 2 * R; ++k) q[k] = *global_pack(c, first + dir * (k - R));
      }
      T* dst = a.out + a.g.index(c, first);
      for (int tb = 0; tb < rows; tb += Q) {
  #pragma unroll
        for (int s = 0; s < Q; ++s) {
          const int t = tb + s;
          if (t >= rows) break;
          __pipeline_wait_prior(kAhead - 1);  // position t + R has landed (this thread's part)
          __syncwarp();                             // ... and the warp's; position t - 1 is read by all lanes
          q[(2 * R + s) % Q] = *reinterpret_cast<const Pack<T>*>(&ring[(t + R) & (kStreamRing - 1)][H + lane * W]);
          fetch_row(t + R + kAhead);          // into the slot of position t - 1 (or older)
          if (c < nx) {
            // Columns c - H .. c + W + H - 1 of this row: the halo packs as 16-byte shared
            // loads, this thread's own pack from the queue (ncu: shared-memory
            // instruction stalls lead, so a load saved counts).
            T win[WIN];
            const T* centre_row = ring[t & (kStreamRing - 1)] + lane * W;
  #pragma unroll
            for (int p = 0; p < WIN / W; ++p) {
              const Pack<T> pk = p == HV ? q[(R + s) % Q] : *reinterpret_cast<const Pack<T>*>(centre_row + p * W);
  #pragma unroll
              for (int w = 0; w < W; ++w) win[p * W + w] = pk.v[w];
            }
            Pack<T> out;
  #pragma unroll
            for (int w = 0; w < W; ++w) {
              T row[Q], col[Q];
  #pragma unroll
              for (int k = 0; k < Q; ++k) {
                row[k] = win[H + w + k - R];
                col[k] = q[(k + s) % Q].v[w];
              }
              out.v[w] = heat2d_point<T, R>(row, col, a.c, a.c);
            }
            if (c + W <= nx) {
              *reinterpret_cast<Pack<T>*>(dst) = out;
            } else {
  #pragma unroll
              for (int w = 0; w < W; ++w)
                if (c + w < nx) dst[w] = out.v[w];
            }
          }
          dst += step;
        }
      }
    };
    if (by % 2) walk.template operator()<-1>();
    else walk.template operator()<1>();
    __pipeline_wait_prior(0);
    // The boundary step, fused: only blocks whose region has ghost images write them.
    const int ie = min(i0 + TW, nx);
    if (i0 < kGhost || ie > nx - kGhost || j0 < kGhost || j1 > ny - kGhost) {
      __syncthreads();  // the block's stores are visible to the whole block
      fill_ghosts_of_region(a.out, a.g, rule, i0, ie, j0, j1);
    }
  }
}

}  // namespace ss
