#pragma once
// elastic3d's stream25d kernel: one block per TX x TY tile of columns and a run of z
// planes (a slab), streaming along z. Per plane ks it
//   L  loads u^n of plane ks + R into a ring of 2R + 1 planes over the tile plus R (the
//      stress region), and, for planes the block writes, builds u^n of plane ks over the
//      tile plus 2R without its corners (the x and y lines of the halo's strains): the
//      stress region copied from the ring, the arms beyond it from memory;
//   S  computes the stresses of plane ks (elastic_strain, elastic_stress, the stress
//      sources) at the tile's nodes and, for planes the block writes, at the cross of R
//      columns and rows around it: xx, yy, xy, xz, yz to a shared plane; each thread
//      keeps its own node's xz, yz, zz in a register queue of 2R + 1 planes;
//   D  adds the in-plane part of the divergence of plane ks, (D_x s_xx + D_y s_xy) and so
//      on, to a register queue of R + 1 planes, and writes u^{n+1} of plane ks - R: that
//      part plus D_z of the queued s_cz, the force sources, the update.
// Every value is computed by the point functions of elastic3d.hpp on the same operands in
// the same order as `steps` and `fused` (the divergence's grouping (D_x + D_y) + D_z is
// what lets its in-plane part wait R planes), so the three write the same bits. Stresses
// outside the grid are the ghost rule's: 0 beyond the x, y and bottom faces, and on a
// free top -sigma_cz(-k) above it (all three queued components mirror with sign -1).
// Only the sponge boundary (free or absorbing top) runs here; the launcher refuses the
// others (periodic wraps, CPML) and the step runs `fused` for them.
#include "sim/models/elastic3d/elastic3d_kernels.cuh"

namespace ss {

/// The shared-memory layout of a TX x TY tile at radius R.
template <typename T, int R, int TX, int TY>
struct ElasticStreamShape {
  static constexpr int kTX = TX, kTY = TY, kThreads = TX * TY;
  static constexpr int kEX = TX + 2 * R, kEY = TY + 2 * R;  ///< the stress region: tile plus R
  static constexpr int kWX = TX + 4 * R, kWY = TY + 4 * R;  ///< the u plane of the halo's x, y lines
  static constexpr int kRing = 2 * R + 1;                   ///< u^n planes ks - R .. ks + R
  static constexpr int kE = kEX * kEY, kW = kWX * kWY;
  static constexpr int kHalo = 2 * R * (TX + TY);  ///< the cross: R columns left and right, R rows above and below
  static constexpr std::size_t kRingValues = static_cast<std::size_t>(kRing) * 3 * kE;
  static constexpr std::size_t kWideValues = 3 * static_cast<std::size_t>(kW);
  static constexpr std::size_t kStressValues = 5 * static_cast<std::size_t>(kE);  ///< xx, yy, xy, xz, yz
  static constexpr std::size_t kBytes = (kRingValues + kWideValues + kStressValues) * sizeof(T);
  /// Two blocks per SM where the registers allow it (float, at most 256 threads).
  static constexpr int kMinBlocks = sizeof(T) == sizeof(float) && kThreads <= 256 ? 2 : 1;
};

/// The nine derivatives and the stresses of node (gi, gj, ks) (interior), its x and y
/// lines from `xy` (3 components kc apart, rows ld apart, the node at `at`), its z line
/// from the ring (component c of the plane ks - R + m at ring[zoff[m] + c E + ring_at]).
template <typename T, int R, int E>
__device__ SS_FORCEINLINE Stress6<T> elastic_stream_stress(const T* xy, int kc, int ld, int at, const T* ring,
                                                          const int (&zoff)[2 * R + 1], int ring_at,
                                                          const ElasticMediumPtrs<T>& m, std::size_t e, bool surface,
                                                          const ElasticStressStep<T>& src, const T* w, int gi, int gj,
                                                          int ks) {
  T g[3][3];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    T line[2 * R + 1];
#pragma unroll
    for (int q = 0; q <= 2 * R; ++q) line[q] = xy[c * kc + at + (q - R)];
    g[c][0] = first_derivative<T, R>(line);
#pragma unroll
    for (int q = 0; q <= 2 * R; ++q) line[q] = xy[c * kc + at + (q - R) * ld];
    g[c][1] = first_derivative<T, R>(line);
#pragma unroll
    for (int q = 0; q <= 2 * R; ++q) line[q] = ring[zoff[q] + c * E + ring_at];
    g[c][2] = first_derivative<T, R>(line);
  }
  Stress6<T> s = elastic_stress(elastic_strain(g), VtiNode<T>{m.c11[e], m.c13[e], m.c33[e], m.c44[e], m.c66[e]}, surface);
  if (src.n > 0) {
    T v[6] = {s.xx, s.yy, s.zz, s.xy, s.xz, s.yz};
    elastic_add_stresses(src, gi, gj, ks, w, v);
    s = Stress6<T>{v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  return s;
}

/// One step of the interior (sponge boundary): u^{n+1} = out from cur (u^n), prev
/// (u^{n-1}), the medium, the damping tables, the stress and force sources. Blocks:
/// (tiles along x, tiles along y, slabs of `slab` planes).
template <typename T, int R, int TX, int TY>
__global__ void __launch_bounds__(TX* TY, (ElasticStreamShape<T, R, TX, TY>::kMinBlocks))
    elastic3d_stream25d(ElasticFields3<T> cur, ElasticFields3<T> prev, ElasticMediumPtrs<T> m,
                        const T* __restrict__ damp, ElasticFields3<T> out, Grid3D g, bool free_top, int slab,
                        ElasticStressStep<T> stress_src, ElasticForceStep<T> forces, const T* __restrict__ w) {
  using Sh = ElasticStreamShape<T, R, TX, TY>;
  constexpr int EX = Sh::kEX, E = Sh::kE, WX = Sh::kWX, W = Sh::kW, S = Sh::kRing, NT = Sh::kThreads;
  extern __shared__ __align__(16) unsigned char elastic_stream_smem[];
  T* const ring = reinterpret_cast<T*>(elastic_stream_smem);  // [S][3][EY][EX]
  T* const wide = ring + Sh::kRingValues;                       // [3][WY][WX]
  T* const sst = wide + Sh::kWideValues;                        // [5][EY][EX]: xx, yy, xy, xz, yz

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
  const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;  // the tile's first node; ext (ex, ey) is (i0 - R + ex, j0 - R + ey)
  const int i = i0 + tx, j = j0 + ty;
  const bool mine = i < g.nx && j < g.ny;
  const int kb = blockIdx.z * slab, ke = min(g.nz, kb + slab);  // the planes this block writes
  const int ks_lo = max(0, kb - R), ks_hi = min(g.nz, ke + R);  // the planes whose stresses it computes
  const int center = (ty + R) * EX + (tx + R);                 // this thread's node in the stress region

  // u^n plane p (needed: the stresses of ks_lo .. ks_hi - 1 read p = ks -+ R) into its ring slot.
  auto load_ring = [&](int p) {
    if (p < ks_lo - R || p >= ks_hi + R) return;
    T* slot = ring + ((p + 3 * S) % S) * 3 * E;
    for (int n = tid; n < E; n += NT) {
      const int gi = i0 - R + n % EX, gj = j0 - R + n / EX;
      // Within R of the interior: the ghosts (R <= kGhost); farther nodes are never read.
      const bool in = gi >= -R && gi < g.nx + R && gj >= -R && gj < g.ny + R;
      const std::size_t e = in ? g.index(gi, gj, p) : 0;
#pragma unroll
      for (int c = 0; c < 3; ++c) slot[c * E + n] = in ? cur.c[c][e] : T(0);
    }
  };

  // The register queues: s_xz, s_yz, s_zz of this thread's node at planes ks - 2R .. ks
  // (index 2R the newest; 0 beyond the faces, the mirror above a free top), and the
  // in-plane divergence parts at planes ks - R .. ks.
  T zq[3][S], pq[3][R + 1];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
#pragma unroll
    for (int q = 0; q < S; ++q) zq[c][q] = T(0);
#pragma unroll
    for (int q = 0; q <= R; ++q) pq[c][q] = T(0);
  }

  for (int p = kb - 2 * R; p < kb; ++p) load_ring(p);
  for (int ks = kb - R; ks < ke + R; ++ks) {
    const bool stresses = ks >= ks_lo && ks < ks_hi;  // this node's (for the z queue)
    const bool halo = ks >= kb && ks < ke;            // and the cross's (for the in-plane divergence)
    // ---- L: u^n plane ks + R into the ring, plane ks over the tile plus 2R.
    load_ring(ks + R);
    if (halo) {
      // The stress region from the ring's plane ks (loaded R planes ago, the same values),
      // the arms beyond it from memory: R columns left and right of the tile's rows, R rows
      // above and below its columns.
      const T* const plane_ks = ring + ((ks + 3 * S) % S) * 3 * E;
      for (int n = tid; n < E; n += NT) {
        const int at = (n / EX + R) * WX + n % EX + R;
#pragma unroll
        for (int c = 0; c < 3; ++c) wide[c * W + at] = plane_ks[c * E + n];
      }
      for (int h = tid; h < Sh::kHalo; h += NT) {
        int wx, wy;
        if (h < 2 * R * TY) {
          const int col = h % (2 * R);
          wx = col < R ? col : col + TX + 2 * R;
          wy = 2 * R + h / (2 * R);
        } else {
          const int r = (h - 2 * R * TY) / TX;
          wx = 2 * R + (h - 2 * R * TY) % TX;
          wy = r < R ? r : r + TY + 2 * R;
        }
        const int gi = i0 - 2 * R + wx, gj = j0 - 2 * R + wy;
        const bool in = gi >= -R && gi < g.nx + R && gj >= -R && gj < g.ny + R;
        const std::size_t e = in ? g.index(gi, gj, ks) : 0;
#pragma unroll
        for (int c = 0; c < 3; ++c) wide[c * W + wy * WX + wx] = in ? cur.c[c][e] : T(0);
      }
    }
    __syncthreads();

    // ---- S: the stresses of plane ks.
    int zoff[S];  // ring offset of plane ks - R + q
#pragma unroll
    for (int q = 0; q < S; ++q) zoff[q] = ((ks - R + q + 3 * S) % S) * 3 * E;
    const bool surface = free_top && ks == 0;
    T own[3] = {T(0), T(0), T(0)};  // s_xz, s_yz, s_zz of this thread's node
    if (stresses && mine) {
      const Stress6<T> s = elastic_stream_stress<T, R, E>(ring + zoff[R], E, EX, center, ring, zoff, center, m,
                                                          g.index(i, j, ks), surface, stress_src, w, i, j, ks);
      own[0] = s.xz, own[1] = s.yz, own[2] = s.zz;
      if (halo) {
        sst[0 * E + center] = s.xx, sst[1 * E + center] = s.yy, sst[2 * E + center] = s.xy;
        sst[3 * E + center] = s.xz, sst[4 * E + center] = s.yz;
      }
    } else if (halo) {
#pragma unroll
      for (int c = 0; c < 5; ++c) sst[c * E + center] = T(0);  // beyond the x or y face
    }
    if (halo) {
      for (int h = tid; h < Sh::kHalo; h += NT) {
        int ex, ey;
        if (h < 2 * R * TY) {  // R columns left and right of the tile's rows
          const int col = h % (2 * R);
          ex = col < R ? col : col + TX;
          ey = R + h / (2 * R);
        } else {  // R rows above and below the tile's columns
          const int r = (h - 2 * R * TY) / TX;
          ex = R + (h - 2 * R * TY) % TX;
          ey = r < R ? r : r + TY;
        }
        const int n = ey * EX + ex, gi = i0 - R + ex, gj = j0 - R + ey;
        if (gi >= 0 && gi < g.nx && gj >= 0 && gj < g.ny) {
          const Stress6<T> s = elastic_stream_stress<T, R, E>(wide, W, WX, (ey + R) * WX + ex + R, ring, zoff, n, m,
                                                              g.index(gi, gj, ks), surface, stress_src, w, gi, gj, ks);
          sst[0 * E + n] = s.xx, sst[1 * E + n] = s.yy, sst[2 * E + n] = s.xy;
          sst[3 * E + n] = s.xz, sst[4 * E + n] = s.yz;
        } else {
#pragma unroll
          for (int c = 0; c < 5; ++c) sst[c * E + n] = T(0);  // the ghost rule beyond the x and y faces
        }
      }
    }
    // u^n of the plane written this iteration (ks - R), before the ring moves on.
    const int ko = ks - R;
    T u_ko[3] = {T(0), T(0), T(0)};
    const bool write = mine && ko >= kb && ko < ke;
    if (write) {
#pragma unroll
      for (int c = 0; c < 3; ++c) u_ko[c] = ring[zoff[0] + c * E + center];
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
#pragma unroll
      for (int q = 0; q < S - 1; ++q) zq[c][q] = zq[c][q + 1];
      zq[c][S - 1] = own[c];
      // A free top's ghost plane -ks (pushed as 0 at iteration -ks, now at 2R - 2 ks) is
      // -s_cz(ks), as the stress ghost kernel writes it; static indices keep zq in registers.
      if (free_top) {
#pragma unroll
        for (int mm = 1; mm <= R; ++mm)
          if (ks == mm) zq[c][2 * R - 2 * mm] = T(-1) * own[c];
      }
    }
    __syncthreads();

    // ---- D: the in-plane divergence of plane ks; u^{n+1} of plane ko.
    T part[3] = {T(0), T(0), T(0)};
    if (halo && mine) {
      // a_x: D_x s_xx + D_y s_xy; a_y: D_x s_xy + D_y s_yy; a_z: D_x s_xz + D_y s_yz.
      constexpr int xs[3] = {0, 2, 3}, ys[3] = {2, 1, 4};
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        T line[2 * R + 1];
#pragma unroll
        for (int q = 0; q <= 2 * R; ++q) line[q] = sst[xs[c] * E + center + (q - R)];
        const T dx = first_derivative<T, R>(line);
#pragma unroll
        for (int q = 0; q <= 2 * R; ++q) line[q] = sst[ys[c] * E + center + (q - R) * EX];
        const T dy = first_derivative<T, R>(line);
        part[c] = dx + dy;
      }
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
#pragma unroll
      for (int q = 0; q < R; ++q) pq[c][q] = pq[c][q + 1];
      pq[c][R] = part[c];
    }
    if (write) {
      T a[3];
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        a[c] = pq[c][0] + first_derivative<T, R>(zq[c]);
      }
      if (forces.n > 0) elastic_add_forces(forces, i, j, ko, w, a);
      const std::size_t e = g.index(i, j, ko);
      const T d = (damp[i] * damp[g.nx + j]) * damp[g.nx + g.ny + ko];
      const T qe = m.q[e];
#pragma unroll
      for (int c = 0; c < 3; ++c) out.c[c][e] = elastic_update(u_ko[c], prev.c[c][e], qe, a[c], d);
    }
  }
}

}  // namespace ss
