#pragma once
// Acoustic 3D's packed stream25d kernel (the default shape of the stream25d variant): the
// ring of heat 3D's stream25d (sim/models/heat3d/heat3d_stream25d.cuh, its barriers from
// heat3d_sync.cuh, included as they are) without heat's boundary duties, because the
// acoustic ghost faces are in memory (the boundary step writes them; under the sponge and
// the CPML their zeros once, see acoustic3d_device.cu). Every ring pack is then one 16-byte
// cp.async.
//
// Each thread owns one 16-byte pack (4 floats or 2 doubles) of one row of a 32-pack by
// BY-row xy tile and marches it along z over a slab of planes: the z line lives in a
// register queue of 2R + 1 packs that rotates by renaming; the x and y neighbours come
// from the current plane of a ring of RING xy planes (tile plus halo) in shared memory,
// filled with cp.async RING - R - 1 planes ahead of the plane the queue takes in. Two
// mbarriers per ring slot order the block instead of a __syncthreads per plane: a warp
// waits for the plane it takes in to have landed and, before fetching into a slot, for
// every warp to have read the plane there. p_prev and (v dt/h)^2 arrive as 16-byte loads,
// p_next leaves as one 16-byte store; the point function is acoustic3d_point, as in
// every variant.
#include <cuda_pipeline.h>

#include <cstdint>

#include "sim/core/pack.cuh"
#include "sim/models/acoustic3d/acoustic3d_kernels.cuh"
#include "sim/models/heat3d/heat3d_sync.cuh"  // mbarrier_*, stream25d_sync (heat's, unchanged)

namespace ss {

inline constexpr int kAcousticPackBX = 32;  // packs per tile row: a warp per row

/// The packed kernel's tile and ring: BY rows of 32 packs, RING planes.
template <typename T, int R, int BY, int RING>
struct AcousticPackShape {
  static constexpr int threads = kAcousticPackBX * BY;
  static constexpr int Q = 2 * R + 1;
  static constexpr int W = Pack<T>::n;        // values per pack
  static constexpr int HV = (R + W - 1) / W;  // x-halo packs per side
  static constexpr int H = HV * W;            // x-halo columns per side
  static constexpr int TW = kAcousticPackBX * W;  // tile width in columns
  static constexpr int LW = TW + 2 * H;       // ring row width
  static constexpr int TH = BY + 2 * R;       // ring rows per plane
  static constexpr int PLANE = TH * LW;       // values per ring plane
  static constexpr int AHEAD = RING - R - 1;  // fetch distance past the plane the queue takes in
  static constexpr int XH = 2 * HV * BY;      // x-halo packs per plane
  static constexpr int ITEMS = TH * kAcousticPackBX + XH;  // packs copied per plane
  static constexpr int PER_THREAD = (ITEMS + threads - 1) / threads;
  // The x-halo packs go to every XSTRIDE-th spare duty, so that they are spread over warps.
  static constexpr int XSTRIDE = (PER_THREAD * threads - TH * kAcousticPackBX) / XH;
  static constexpr std::size_t smem_bytes = sizeof(T) * static_cast<std::size_t>(RING) * PLANE;
  static_assert(XSTRIDE >= 1 && AHEAD >= 1 && LW % W == 0 && H <= kGhost);
};

/// The ring of the packed kernel, planes k0 on (earlier planes of the z line come straight
/// from global memory). Planes past the faces are ghost planes the boundary step wrote.
template <typename T, int R, int BY, int RING>
__global__ void __launch_bounds__(kAcousticPackBX* BY, 512 / (kAcousticPackBX * BY))
    acoustic3d_step_stream25d_packed(Acoustic3DStepArgs<T> a, int slab) {
  using S = AcousticPackShape<T, R, BY, RING>;
  constexpr int Q = S::Q, W = S::W, H = S::H, LW = S::LW, THREADS = S::threads;
  extern __shared__ __align__(16) unsigned char acoustic_pack_smem[];
  T* ring = reinterpret_cast<T*>(acoustic_pack_smem);
  const Grid3D& g = a.g;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kAcousticPackBX + tx;
  // One launch dimension for the tiles: blocks of one slab are neighbours in launch order.
  const int bx = static_cast<int>((g.nx + S::TW - 1) / S::TW), by = (g.ny + BY - 1) / BY;
  const int block_x = static_cast<int>(blockIdx.x % bx), block_y = static_cast<int>(blockIdx.x / bx % by);
  const int block_z = static_cast<int>(blockIdx.x / (static_cast<unsigned>(bx) * by));
  // full[s]: the plane in slot s has landed; empty[s]: every thread has read it. Phase n
  // of a slot's barriers is the slot's n-th plane. Every thread arrives on `empty` after
  // its own reads, as heat3d's stream25d (racecheck, docs/sanitizer.md).
  __shared__ std::uint64_t full[RING], empty[RING];
  if (tid == 0) {
    for (int i = 0; i < RING; ++i) {
      mbarrier_init(&full[i], BY);  // one arrival per warp
      mbarrier_init(&empty[i], BY * kAcousticPackBX);  // one per thread
    }
  }
  __syncthreads();
  const int i0 = block_x * S::TW, j0 = block_y * BY;
  const int k0 = block_z * slab, k1 = min(k0 + slab, g.nz);
  const int c = i0 + tx * W, j = j0 + ty;  // this thread's first column and its row
  const bool inside = c < g.nx && j < g.ny;
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());

  // Copy duties, the same for every plane: the source within plane 0 and the ring
  // offset (-1: none). Core and y-halo rows first (32 packs each, a warp per row), then
  // the x-halo packs of the core rows. A pack is fetched when its first column is read:
  // columns [-R, nx + R) of rows [-R, ny + R) (x ghosts only in the core rows, where
  // they are x neighbours; the other columns fetched with them are never read).
  std::ptrdiff_t src[S::PER_THREAD];
  int dst[S::PER_THREAD];
#pragma unroll
  for (int n = 0; n < S::PER_THREAD; ++n) {
    const int e = tid + n * THREADS;
    const int spare = e - S::TH * kAcousticPackBX;
    const bool item = spare < 0 || (spare % S::XSTRIDE == 0 && spare / S::XSTRIDE < S::XH);
    int x = 0, ry = 0, cx = 0;
    if (spare < 0) {
      ry = e / kAcousticPackBX;
      const int px = e % kAcousticPackBX;
      x = i0 + px * W;
      cx = H + px * W;
    } else {
      const int h = spare / S::XSTRIDE;  // 2 HV packs per core row
      ry = R + h / (2 * S::HV);
      const int p = h % (2 * S::HV);
      x = p < S::HV ? i0 - H + p * W : i0 + S::TW + (p - S::HV) * W;
      cx = p < S::HV ? p * W : H + S::TW + (p - S::HV) * W;
    }
    const int y = j0 - R + ry;
    const bool fetched = item && y < g.ny + R && x < g.nx + R;
    src[n] = fetched ? static_cast<std::ptrdiff_t>(g.index(x, y, 0)) : 0;
    dst[n] = fetched ? ry * LW + cx : -1;
  }
  // The ring slot of plane k0 + gi Q + off and the parity of its phase in that slot's
  // barriers. In the unrolled steps `off` is a constant, and with a ring of Q planes so
  // are the slot and (but for gi's parity) the phase.
  auto slot_of = [&](int gi, int off) -> int {
    if constexpr (RING == Q) return (off % Q + Q) % Q;
    else return static_cast<int>(static_cast<unsigned>(gi * Q + off) % RING);
  };
  auto parity_of = [&](int gi, int off) -> unsigned {
    if constexpr (RING == Q) return static_cast<unsigned>(gi + (off >= 0 ? off / Q : -((Q - 1 - off) / Q))) & 1U;
    else return static_cast<unsigned>(gi * Q + off) / RING & 1U;
  };
  // A plane past the slab's last step (z >= k1 + R) is neither fetched nor arrived for:
  // no warp waits for it (an arrival nobody waits on is synccheck's "Missing wait").
  auto fetch_plane = [&](int gi, int off) {
    const int z = k0 + gi * Q + off, si = slot_of(gi, off);
    if (z >= k1 + R) return;
    T* slot = ring + si * S::PLANE;
    const T* from = a.p + z * plane;
#pragma unroll
    for (int n = 0; n < S::PER_THREAD; ++n)
      if (dst[n] >= 0) __pipeline_memcpy_async(slot + dst[n], from + src[n], 16);
    mbarrier_arrive_copies(&full[si]);
    __syncwarp();
    if (tx == 0) mbarrier_arrive(&full[si]);  // after the warp's copy arrivals
  };
#pragma unroll
  for (int d = 0; d < R + S::AHEAD; ++d) fetch_plane(0, d);

  // This thread's damping along x and y (the product as acoustic3d_interior_host forms it).
  T damp_xy[W];
#pragma unroll
  for (int w = 0; w < W; ++w) damp_xy[w] = inside && c + w < g.nx ? a.damp[c + w] * a.damp[g.nx + j] : T(0);
  const T* damp_z = a.damp + g.nx + g.ny;

  // q[(m + s) % Q] holds plane k + m - R at step s of an unrolled group of Q planes.
  // Planes k0 - R .. k0 - 1 come straight from global memory (ghost planes included),
  // planes k0 .. k0 + R - 1 from the ring once they have landed.
  Pack<T> q[Q];
  const std::size_t own_at = g.index(inside ? c : 0, inside ? j : 0, 0);
  const int own = (R + ty) * LW + H + tx * W;  // this thread's pack in a ring plane
  if (inside) {
#pragma unroll
    for (int m = 0; m < R; ++m) q[m] = *reinterpret_cast<const Pack<T>*>(a.p + own_at + (k0 - R + m) * plane);
  }
  stream25d_sync();
#pragma unroll
  for (int m = R; m < 2 * R; ++m) {  // planes k0 .. k0 + R - 1, in slots 0 .. R - 1
    mbarrier_wait(&full[m - R], 0);
    if (inside) q[m] = *reinterpret_cast<const Pack<T>*>(ring + (m - R) * S::PLANE + own);
  }
  for (int s0 = 0, gi = 0; k0 + s0 < k1; s0 += Q, ++gi) {
#pragma unroll
    for (int s = 0; s < Q; ++s) {
      const int d = s0 + s;  // this step's plane is k0 + d
      if (k0 + d >= k1) break;
      const std::size_t at = own_at + (k0 + d) * plane;
      Pack<T> prev, c2;  // issued before the waits: their latency hides behind them
      if (inside) {
        prev = *reinterpret_cast<const Pack<T>*>(a.prev + at);
        c2 = *reinterpret_cast<const Pack<T>*>(a.c2 + at);
      }
      stream25d_sync();
      mbarrier_wait(&full[slot_of(gi, s + R)], parity_of(gi, s + R));  // plane k0 + d + R has landed
      q[(2 * R + s) % Q] = *reinterpret_cast<const Pack<T>*>(ring + slot_of(gi, s + R) * S::PLANE + own);
      // The fetch below reuses the slot of plane d - 1: every warp has read it.
      constexpr int reused = R + S::AHEAD - RING;
      if (d + reused >= 0) mbarrier_wait(&empty[slot_of(gi, s + reused)], parity_of(gi, s + reused));
      fetch_plane(gi, s + R + S::AHEAD);
      if (inside) {
        const T* p = ring + slot_of(gi, s) * S::PLANE + own;
        T win[W + 2 * H];  // x: columns c - H .. c + W + H - 1 of row j (its own pack from the queue)
#pragma unroll
        for (int v = 0; v < (W + 2 * H) / W; ++v) {
          const Pack<T> pk = v == S::HV ? q[(R + s) % Q] : *reinterpret_cast<const Pack<T>*>(p - H + v * W);
#pragma unroll
          for (int w = 0; w < W; ++w) win[v * W + w] = pk.v[w];
        }
        Pack<T> ys[Q];  // y: rows j - R .. j + R of columns c .. c + W - 1
#pragma unroll
        for (int m = 0; m < Q; ++m)
          if (m != R) ys[m] = *reinterpret_cast<const Pack<T>*>(p + (m - R) * LW);
        const T dz = damp_z[k0 + d];
        Pack<T> out;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          T row[Q], col[Q], dep[Q];
#pragma unroll
          for (int m = 0; m < Q; ++m) {
            row[m] = win[H + w + m - R];
            col[m] = m == R ? row[m] : ys[m].v[w];
            dep[m] = q[(m + s) % Q].v[w];
          }
          out.v[w] = acoustic3d_point<T, R>(row, col, dep, prev.v[w], c2.v[w], damp_xy[w] * dz);
        }
        T* o = a.out + at;
        if (c + W <= g.nx) {
          *reinterpret_cast<Pack<T>*>(o) = out;
        } else {
#pragma unroll
          for (int w = 0; w < W; ++w)
            if (c + w < g.nx) o[w] = out.v[w];
        }
      }
      mbarrier_arrive(&empty[slot_of(gi, s)]);  // plane d read by this thread
    }
  }
  // Every phase a thread arrives on is waited on before the block ends: the `empty`
  // phases of the slab's last planes, which no later fetch waited for.
  {
    constexpr int reused = R + S::AHEAD - RING;
    const int planes = k1 - k0;
    for (int d = max(0, planes + reused); d < planes; ++d) mbarrier_wait(&empty[slot_of(0, d)], parity_of(0, d));
  }
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");  // nothing is in flight now; kept as a guard
#endif
}

}  // namespace ss
