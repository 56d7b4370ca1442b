#pragma once
// elastic3d's register25d kernel: stream25d's walk along z (elastic3d_stream25d.cuh) with
// the tile's u^n columns in registers and every load issued one plane ahead. One block per
// TX x TY tile of columns and a slab of z planes; one thread per column of the tile. The
// thread keeps u^n of its column at planes ks - R .. ks + R in a register queue (its z
// lines), and the block keeps in shared memory only
//   wide  u^n of plane ks over the tile plus 2R, without the corners beyond R (the x and y
//         lines of the strains), two buffers: plane ks + 1 arrives while ks is computed;
//         u_x and u_y side by side (one 8-byte load gives both), u_z apart;
//   ring  u^n of the cross (R columns left and right of the tile's rows, R rows above and
//         below its columns: the nodes whose stresses the in-plane divergence reads) at
//         planes ks - R .. ks + R + 1 (their z lines);
//   medium C11, C13, C33, C44, C66 of the cross at planes ks and ks + 1 ((C11, C13) and
//          (C33, C44) as pairs);
//   tile   per thread, u^n of its column at plane ks + R (the queue's next) and the
//          medium of its node at ks, for planes ks and ks + 1;
//   stress xx, yy, xy, xz, yz of plane ks over the tile plus the cross (and of ks - 1 where
//          the shape takes one barrier a plane, kOneBarrier): (xx, xz) side by side, the
//          x line's pair, (yy, yz) the y line's, xy apart (ElasticStressPlane).
// The pairs (as the ring's (u_x, u_y)) make a line of two components one shared load a
// node instead of two: 32 instead of 48 loads for the node's x and y lines, as many for the
// divergence's, the same values in the same arithmetic.
// All of it arrives by cp.async one plane ahead (zero-filled beyond R of the interior,
// which no needed stress reads), so no load waits in the loop but u^{n-1} and q of the
// plane written, issued before the stresses that hide them. Per plane ks, after one block
// barrier (plane ks landed, the tile's u^n of ks stored):
//   S  the stresses of plane ks at the thread's node (z line from its queue) and, for
//      planes the block writes, at its share of the cross (z lines from the ring; the three
//      components the divergence reads there): the stress plane, and the thread's own xz,
//      yz, zz into a register queue of 2R + 1 planes;
//   D  after a second barrier, the in-plane divergence (D_x s_xx + D_y s_xy and so on)
//      into a queue of R + 1 planes, and u^{n+1} of plane ks - R: that part plus D_z of
//      the queued s_cz, the force sources, the update. With kOneBarrier, D of plane ks - 1
//      runs instead right after S of plane ks, with no barrier between (its stress plane is
//      the other one; one more iteration at the end).
// Every value comes from the point functions of elastic3d.hpp on the same operands in the
// same order as `steps` and `fused` ((D_x + D_y) + D_z, as stream25d), so the variants
// write the same bits. The boundaries are stream25d's: the sponge only (free or absorbing
// top; the mirror of s_cz above a free top as there); the launcher refuses the others and
// the step runs `fused` for them.
#include "sim/models/elastic3d/elastic3d_kernels.cuh"

namespace ss {

/// Two values side by side in shared memory: one 8-byte (float) or 16-byte (double) load.
template <typename T>
struct alignas(2 * sizeof(T)) ElasticPair {
  T x, y;
};

/// A stress plane in shared memory: what the divergence's x lines read, (xx, xz), and its y
/// lines, (yy, yz), as pairs, and xy, which both read.
template <typename T>
struct ElasticStressPlane {
  ElasticPair<T>* xa;  ///< (s_xx, s_xz)
  ElasticPair<T>* ya;  ///< (s_yy, s_yz)
  T* xy;               ///< s_xy
};

/// The shared-memory layout of a TX x TY tile at radius R, a thread per node.
template <typename T, int R, int TX, int TY>
struct ElasticRegisterShape {
  static constexpr int kTX = TX, kTY = TY;
  static constexpr int kNodes = TX * TY, kThreads = TX * TY;
  static constexpr int kEX = TX + 2 * R, kEY = TY + 2 * R;  ///< the stress region: tile plus R
  static constexpr int kWX = TX + 4 * R, kWY = TY + 4 * R;  ///< the wide plane: tile plus 2R
  /// Its row pitch: kWX padded to 2R modulo 4R, so that a warp on the arms left and right of
  /// the tile (rows of 2R columns) reads 32 different banks (48 -> 56 at R = 4).
  static constexpr int kWP = kWX + ((6 * R - kWX % (4 * R)) % (4 * R));
  static constexpr int kE = kEX * kEY, kW = kWP * kWY;
  static constexpr int kCross = 2 * R * (TX + TY);  ///< columns of the cross
  static constexpr int kRing = 2 * R + 2;           ///< planes ks - R .. ks + R and the one arriving
  /// Wide cells and cross columns per thread (copies; the cross's stresses).
  static constexpr int kWideSlots = (kW + kThreads - 1) / kThreads;
  static constexpr int kCrossSlots = (kCross + kThreads - 1) / kThreads;
  /// Float tiles of more than 256 nodes (about 176 KB at order 8) run alone on an SM, where a
  /// barrier stalls every warp: they take the divergence of plane ks - 1 between the same two
  /// barriers as the stresses of plane ks (two stress planes, one barrier a plane). Else one
  /// stress plane and two barriers (32 x 8 keeps two blocks per SM; double has no room for the
  /// second).
  static constexpr bool kOneBarrier = sizeof(T) == sizeof(float) && kNodes > 256;
  /// The ring held twice (plane p in slots p % kRing and p % kRing + kRing), so that the z
  /// lines of planes ks - R .. ks + R are consecutive slots from the first one's and their
  /// loads take constant offsets (no wrap-around per plane and line), where the shared
  /// memory has room: the one-barrier shapes (221 KB at 32 x 16, order 8, float).
  static constexpr bool kRingTwice = kOneBarrier;
  static constexpr int kRingSlots = (kRingTwice ? 2 : 1) * kRing;
  static constexpr std::size_t kRingValues = static_cast<std::size_t>(kRingSlots) * 3 * kCross;
  static constexpr std::size_t kMediumValues = 2 * 5 * static_cast<std::size_t>(kCross);
  static constexpr std::size_t kWideValues = 2 * 3 * static_cast<std::size_t>(kW);
  static constexpr std::size_t kStressValues = (kOneBarrier ? 2 : 1) * 5 * static_cast<std::size_t>(kE);
  static constexpr std::size_t kTileValues = 2 * 8 * static_cast<std::size_t>(kNodes);  ///< u (3), medium (5)
  static constexpr std::size_t kBytes =
      (kRingValues + kMediumValues + kWideValues + kStressValues + kTileValues) * sizeof(T);
  // Every section starts 2 values apart from the base (16-byte aligned): a pair is aligned.
  static_assert(kCross % 2 == 0 && kW % 2 == 0 && kE % 2 == 0, "the pairs need even section sizes");
  /// Two blocks per SM where the shared memory allows it (float, at most 256 nodes).
  static constexpr int kMinBlocks = sizeof(T) == sizeof(float) && kNodes <= 256 ? 2 : 1;
};

/// Cross column h (0 .. kCross - 1) in the stress region: R columns left and right of the
/// tile's rows first, then R rows above and below its columns.
template <int R, int TX, int TY>
SS_HD SS_FORCEINLINE void elastic_cross_column(int h, int& ex, int& ey) {
  if (h < 2 * R * TY) {
    const int col = h % (2 * R);
    ex = col < R ? col : col + TX;
    ey = R + h / (2 * R);
  } else {
    const int r = (h - 2 * R * TY) / TX;
    ex = R + (h - 2 * R * TY) % TX;
    ey = r < R ? r : r + TY;
  }
}

// The copies: cp.async from sm_80 on, its source size a register (0 fills with zeros;
// __pipeline_memcpy_async would branch on it), plain copies before sm_80 and in the host
// emulation (tests/test_elastic3d_stream25d_emulated.cpp), where commit and wait are no-ops.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define SS_ELASTIC_CP_ASYNC 1
#else
#define SS_ELASTIC_CP_ASYNC 0
#endif

/// Copies one value to shared memory without waiting, or writes 0 there when !in.
template <typename T>
__device__ SS_FORCEINLINE void elastic_copy_async(T* dst, const T* src, bool in) {
#if SS_ELASTIC_CP_ASYNC
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src), "n"(sizeof(T)), "r"(in ? static_cast<unsigned>(sizeof(T)) : 0u)
               : "memory");
#else
  *dst = in ? *src : T(0);
#endif
}
/// elastic_copy_async to the shared address `to` (`to_generic`: the same place as a generic
/// pointer, for the plain copies), and only where `go`: one predicated instruction, its
/// destination an address the kernel computes from one base, with no conversion per copy
/// and no branch around it.
template <typename T>
__device__ SS_FORCEINLINE void elastic_copy_to(unsigned to, [[maybe_unused]] T* to_generic, const T* src, bool in,
                                               bool go = true) {
#if SS_ELASTIC_CP_ASYNC
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.u32 p, %4, 0;\n"
      "@p cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
      "}\n" ::"r"(to),
      "l"(src), "n"(sizeof(T)), "r"(in ? static_cast<unsigned>(sizeof(T)) : 0u), "r"(go ? 1u : 0u)
      : "memory");
#else
  (void)to;
  if (go) *to_generic = in ? *src : T(0);
#endif
}
/// The shared address of `p` (0 where there are no cp.async copies).
__device__ SS_FORCEINLINE unsigned elastic_shared_address([[maybe_unused]] const void* p) {
#if SS_ELASTIC_CP_ASYNC
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
#else
  return 0u;
#endif
}
/// Closes this thread's group of copies.
__device__ SS_FORCEINLINE void elastic_copies_commit() {
#if SS_ELASTIC_CP_ASYNC
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits until every copy this thread has committed has landed (its own; a block barrier
/// after it makes them the block's).
__device__ SS_FORCEINLINE void elastic_copies_wait() {
#if SS_ELASTIC_CP_ASYNC
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

/// Stresses of node (i, j, k) from its nine derivatives g[c][a] = d_a u_c, with the
/// stress sources: elastic_strain, elastic_stress and elastic_add_stresses, as `fused`
/// and the stress-source kernel.
/// `sources`: some stress source's box may reach the node's plane of the block (the list
/// is not walked where none does: elastic_source_planes).
template <typename T>
__device__ SS_FORCEINLINE Stress6<T> elastic_register_stress(const T (&g)[3][3], const VtiNode<T>& c, bool surface,
                                                            const ElasticStressStep<T>& src, bool sources, const T* w,
                                                            int i, int j, int k) {
  Stress6<T> s = elastic_stress(elastic_strain(g), c, surface);
  if (sources && src.n > 0) {
    T v[6] = {s.xx, s.yy, s.zz, s.xy, s.xz, s.yz};
    elastic_add_stresses(src, i, j, k, w, v);
    s = Stress6<T>{v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  return s;
}

/// The planes [lo, hi] in which the box of some source of `l` (kSourceRadius about its node)
/// meets columns [x0, x1) x [y0, y1): outside them no node of those columns is in any box,
/// and the kernel skips the per-node walk of the list (a source's box is 17 planes of the
/// grid's, and the walk cost every node of every plane some 20 instructions). lo > hi: none.
template <typename L>
__device__ SS_FORCEINLINE void elastic_source_planes(const L& l, int x0, int x1, int y0, int y1, int& lo, int& hi) {
  constexpr int M = kSourceRadius;
  lo = 1 << 30, hi = -(1 << 30);
  for (int r = 0; r < l.n; ++r) {
    const int sx = l.node[r][0], sy = l.node[r][1], sz = l.node[r][2];
    if (sx + M >= x0 && sx - M < x1 && sy + M >= y0 && sy - M < y1) {
      lo = min(lo, sz - M);
      hi = max(hi, sz + M);
    }
  }
}

/// d_x u_c and d_y u_c of the node at `at` of a wide plane (rows WP): (u_x, u_y) pairs in
/// `xy`, u_z in `z`.
template <typename T, int R, int WP>
__device__ SS_FORCEINLINE void elastic_register_xy(const ElasticPair<T>* xy, const T* z, int at, T (&g)[3][3]) {
#pragma unroll
  for (int a = 0; a < 2; ++a) {  // along x, then y
    const int step = a == 0 ? 1 : WP;
    T line[3][2 * R + 1];
#pragma unroll
    for (int q = 0; q <= 2 * R; ++q) {
      const ElasticPair<T> v = xy[at + (q - R) * step];
      line[0][q] = v.x, line[1][q] = v.y, line[2][q] = z[at + (q - R) * step];
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) g[c][a] = first_derivative<T, R>(line[c]);
  }
}

/// One step of the interior (sponge boundary): u^{n+1} = out from cur (u^n), prev
/// (u^{n-1}), the medium, the damping tables, the stress and force sources. Blocks:
/// (tiles along x, tiles along y, slabs of `slab` planes). Unroll: planes per pass of the
/// loop body as compiled (1 or 2; the same arithmetic, so the same bits). Two halve the
/// register moves that shift the three queues (69 a plane at order 8, on the ALU pipe: the
/// loop's back edge needs each queue in the registers it started in, so the shift is free
/// only inside the body) and make the double buffers' (ks & 1) offsets constants.
template <typename T, int R, int TX, int TY, int Unroll = 1>
__global__ void __launch_bounds__(TX* TY, (ElasticRegisterShape<T, R, TX, TY>::kMinBlocks))
    elastic3d_register25d(ElasticFields3<T> cur, ElasticFields3<T> prev, ElasticMediumPtrs<T> m,
                          const T* __restrict__ damp, ElasticFields3<T> out, Grid3D g, bool free_top, int slab,
                          ElasticStressStep<T> stress_src, ElasticForceStep<T> forces, const T* __restrict__ w) {
  using Sh = ElasticRegisterShape<T, R, TX, TY>;
  constexpr int E = Sh::kE, EX = Sh::kEX, W = Sh::kW, WX = Sh::kWX, WP = Sh::kWP, H = Sh::kCross, NT = Sh::kThreads;
  constexpr int S = 2 * R + 1, RING = Sh::kRing;
  extern __shared__ __align__(16) unsigned char elastic_stream_smem[];
  using P = ElasticPair<T>;
  constexpr int RS = Sh::kRingSlots;
  T* const base = reinterpret_cast<T*>(elastic_stream_smem);
  P* const ring2 = reinterpret_cast<P*>(base);                  // [RS][H]: (u_x, u_y)
  T* const ringz = base + 2 * RS * H;                           // [RS][H]: u_z
  T* const medium = base + Sh::kRingValues;                     // [2][5][H]: (C11, C13), (C33, C44) pairs, C66
  P* const wide2 = reinterpret_cast<P*>(medium + Sh::kMediumValues);  // [2][WY][WP]: (u_x, u_y)
  T* const widez = medium + Sh::kMediumValues + 4 * W;          // [2][WY][WP]: u_z
  T* const sst = medium + Sh::kMediumValues + Sh::kWideValues;  // [1 or 2][5][EY][EX]: (xx, xz), (yy, yz), xy
  T* const tile = sst + Sh::kStressValues;                      // [2][4][NT] pairs: u (3), medium (5)

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
  const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY;  // the tile's first node; stress (ex, ey) is (i0 - R + ex, j0 - R + ey)
  const int i = i0 + tx, j = j0 + ty;
  const bool mine = i < g.nx && j < g.ny;
  const bool column = i < g.nx + R && j < g.ny + R;  // within R of the interior: read (ghosts) though not written
  const int kb = blockIdx.z * slab, ke = min(g.nz, kb + slab);  // the planes this block writes
  const int ks_lo = max(0, kb - R), ks_hi = min(g.nz, ke + R);  // the planes whose stresses it computes
  const int center = (ty + R) * EX + (tx + R);                 // this thread's node in the stress region
  const int own_wide = (ty + 2 * R) * WP + (tx + 2 * R);       // and in the wide plane
  const T* const medium_in[5] = {m.c11, m.c13, m.c33, m.c44, m.c66};
  // Offset of (gi, gj) from its plane's first element; -1 farther than R from the interior.
  auto in_plane = [&](int gi, int gj) -> int {
    const bool in = gi >= -R && gi < g.nx + R && gj >= -R && gj < g.ny + R;
    return in ? (gj + kGhost) * g.pitch + (gi + kGhost) : -1;
  };
  auto plane_start = [&](int p) { return g.index(-kGhost, -kGhost, p); };
  // The loop's element offsets in 32 bits (a field on one GPU holds fewer than 2^32 values:
  // launch_register25d checks): plane_at(p) + in_plane(gi, gj) is g.index(gi, gj, p).
  const unsigned plane32 = static_cast<unsigned>(g.plane()), origin32 = static_cast<unsigned>(plane_start(0));
  auto plane_at = [&](int p) { return origin32 + static_cast<unsigned>(p) * plane32; };
  const unsigned own32 = column ? static_cast<unsigned>(in_plane(i, j)) : 0u;  // this thread's column
  // Shared addresses from one base: the copies' destinations are that base plus constants.
  const unsigned smem_s = elastic_shared_address(elastic_stream_smem);
  auto shared_at = [&](const T* q) { return smem_s + static_cast<unsigned>((q - base) * static_cast<std::ptrdiff_t>(sizeof(T))); };
  // Component c of node n of a buffer of (u_x, u_y) pairs and u_z values.
  auto component = [](P* xy, T* z, int n, int c) -> T* { return c == 0 ? &xy[n].x : c == 1 ? &xy[n].y : &z[n]; };
  // The planes whose stresses (the tile's and the cross's) a stress source reaches, and the
  // planes written that a force source reaches.
  int stress_lo, stress_hi, force_lo, force_hi;
  elastic_source_planes(stress_src, i0 - R, i0 + TX + R, j0 - R, j0 + TY + R, stress_lo, stress_hi);
  elastic_source_planes(forces, i0, i0 + TX, j0, j0 + TY, force_lo, force_hi);

  // The wide cells this thread copies (its share, tid + s NT): their in-plane offsets, -1
  // for zeros, -2 for cells the tile's threads store or no stress reads (the corners beyond R,
// the padding).
  int wide_src[Sh::kWideSlots];
#pragma unroll
  for (int s = 0; s < Sh::kWideSlots; ++s) {
    const int n = tid + s * NT, wx = n % WP, wy = n / WP;
    const bool tile_x = wx >= 2 * R && wx < 2 * R + TX, tile_y = wy >= 2 * R && wy < 2 * R + TY;
    const bool region = wx >= R && wx < TX + 3 * R && wy >= R && wy < TY + 3 * R;
    const bool needed = n < W && wx < WX && !(tile_x && tile_y) && (region || tile_x || tile_y);
    wide_src[s] = needed ? in_plane(i0 - 2 * R + wx, j0 - 2 * R + wy) : -2;
  }
  // The cross columns this thread copies and computes (h = tid + s NT): in-plane offsets.
  int cross_src[Sh::kCrossSlots];
#pragma unroll
  for (int s = 0; s < Sh::kCrossSlots; ++s) {
    const int h = tid + s * NT;
    int ex = 0, ey = 0;
    if (h < H) elastic_cross_column<R, TX, TY>(h, ex, ey);
    cross_src[s] = h < H ? in_plane(i0 - R + ex, j0 - R + ey) : -2;
  }
  auto slot = [](int p) { return (p + RING) % RING; };  // p >= -R
  // Plane p of the wide u (for the stresses of plane p), the ring (z lines of the cross's
  // stresses of planes p - R .. p + R) and the cross's medium (its stresses of plane p).
  // Each copies without a branch (elastic_copy_to): a slot with nothing to copy (-2) is a
  // predicate, a source beyond R of the interior (-1) a zero fill from a valid address.
  auto fetch_wide = [&](int p) {
    if (p < ks_lo || p >= ks_hi) return;
    P* const dst2 = wide2 + (p & 1) * W;
    T* const dstz = widez + (p & 1) * W;
    const unsigned from = plane_at(p);
#pragma unroll
    for (int s = 0; s < Sh::kWideSlots; ++s) {
      const int n = tid + s * NT;
      const unsigned at = from + static_cast<unsigned>(max(wide_src[s], 0));
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        T* const to = component(dst2, dstz, n, c);
        elastic_copy_to(shared_at(to), to, cur.c[c] + at, wide_src[s] >= 0, wide_src[s] != -2);
      }
    }
  };
  auto fetch_ring = [&](int p) {
    if (p < kb - R || p >= ke + R) return;
    P* const dst2 = ring2 + slot(p) * H;
    T* const dstz = ringz + slot(p) * H;
    const unsigned from = plane_at(p);
#pragma unroll
    for (int s = 0; s < Sh::kCrossSlots; ++s) {
      const int h = tid + s * NT;
      const unsigned at = from + static_cast<unsigned>(max(cross_src[s], 0));
      const bool in = cross_src[s] >= 0, go = cross_src[s] != -2;
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        T* const to = component(dst2, dstz, h, c);
        elastic_copy_to(shared_at(to), to, cur.c[c] + at, in, go);
        if constexpr (Sh::kRingTwice) {
          T* const twin = component(dst2 + RING * H, dstz + RING * H, h, c);
          elastic_copy_to(shared_at(twin), twin, cur.c[c] + at, in, go);
        }
      }
    }
  };
  auto fetch_medium = [&](int p) {
    if (p < kb || p >= ke) return;
    T* const dst = medium + (p & 1) * 5 * H;  // pairs (C11, C13), (C33, C44) over the cross, then C66
    const unsigned from = plane_at(p);
#pragma unroll
    for (int s = 0; s < Sh::kCrossSlots; ++s) {
      const int h = tid + s * NT;
      const unsigned at = from + static_cast<unsigned>(max(cross_src[s], 0));
#pragma unroll
      for (int v = 0; v < 5; ++v) {
        T* const to = v < 4 ? &(reinterpret_cast<P*>(dst) + (v / 2) * H + h)->x + v % 2 : dst + 4 * H + h;
        elastic_copy_to(shared_at(to), to, medium_in[v] + at, cross_src[s] >= 0, cross_src[s] != -2);
      }
    }
  };
  // u^n of plane p of this thread's column (0 where never needed).
  auto own_u_in = [&](int p) { return column && p >= ks_lo - R && p < ks_hi + R; };
  // This thread's tile entries for plane p: u^n of plane p + R, the medium of plane p, as
  // four pairs (u_x, u_y), (u_z, C11), (C13, C33), (C44, C66): entry v is element v % 2 of
  // pair v / 2.
  P* const tile2 = reinterpret_cast<P*>(tile);  // [2][4][NT]
  auto tile_entry = [&](int p, int v) { return &(tile2 + (p & 1) * 4 * NT + (v / 2) * NT + tid)->x + v % 2; };
  auto fetch_tile = [&](int p) {
    const bool u_in = own_u_in(p + R), m_in = mine && p >= ks_lo && p < ks_hi;
    const unsigned e = plane_at(p) + own32, em = m_in ? e : 0u, eu = u_in ? e + static_cast<unsigned>(R) * plane32 : 0u;
#pragma unroll
    for (int c = 0; c < 3; ++c) elastic_copy_to(shared_at(tile_entry(p, c)), tile_entry(p, c), cur.c[c] + eu, u_in);
#pragma unroll
    for (int v = 0; v < 5; ++v)
      elastic_copy_to(shared_at(tile_entry(p, 3 + v)), tile_entry(p, 3 + v), medium_in[v] + em, m_in);
  };

  // The register queues: u^n of this column at planes ks - R .. ks + R (index 2R the
  // newest), this node's s_xz, s_yz, s_zz at planes ks - 2R .. ks (0 beyond the faces, the
  // mirror above a free top), the in-plane divergence parts at planes ks - R .. ks.
  T uq[3][S], zq[3][S], pq[3][R + 1];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
#pragma unroll
    for (int q = 0; q < S; ++q) uq[c][q] = T(0), zq[c][q] = T(0);
#pragma unroll
    for (int q = 0; q <= R; ++q) pq[c][q] = T(0);
  }
  // Planes kb - 2R .. kb - 1 into uq[1 .. 2R]: the first iteration (ks = kb - R) shifts them
  // down and takes plane kb.
#pragma unroll
  for (int q = 1; q < S; ++q) {
    const int p = kb - 2 * R - 1 + q;
    const bool in = own_u_in(p);
    const std::size_t e = in ? g.index(i, j, p) : 0;
#pragma unroll
    for (int c = 0; c < 3; ++c) uq[c][q] = in ? cur.c[c][e] : T(0);
  }
  fetch_tile(kb - R);
  fetch_wide(kb - R);
  for (int p = kb - R; p <= kb; ++p) fetch_ring(p);
  fetch_medium(kb - R);
  elastic_copies_commit();

  // The in-plane divergence of plane kd from its stress plane, pushed on the queue, and
  // u^{n+1} of plane kd - R (write: this thread writes it, at e_out): uq and zq are centred
  // on plane kd - R when this runs.
  auto divergence = [&](int kd, const ElasticStressPlane<T>& sst_kd, bool write, unsigned e_out, const T (&u_prev)[3],
                        T qe, T d) {
    T part[3] = {T(0), T(0), T(0)};
    if (mine && kd >= kb && kd < ke) {
      // a_x: D_x s_xx + D_y s_xy; a_y: D_x s_xy + D_y s_yy; a_z: D_x s_xz + D_y s_yz.
      T xl[3][S], yl[3][S];  // the x lines of xx, xy, xz; the y lines of xy, yy, yz
#pragma unroll
      for (int q = 0; q < S; ++q) {
        const P a = sst_kd.xa[center + (q - R)], b = sst_kd.ya[center + (q - R) * EX];
        xl[0][q] = a.x, xl[1][q] = sst_kd.xy[center + (q - R)], xl[2][q] = a.y;
        yl[0][q] = sst_kd.xy[center + (q - R) * EX], yl[1][q] = b.x, yl[2][q] = b.y;
      }
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const T dx = first_derivative<T, R>(xl[c]);
        const T dy = first_derivative<T, R>(yl[c]);
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
      for (int c = 0; c < 3; ++c) a[c] = pq[c][0] + first_derivative<T, R>(zq[c]);
      if (kd - R >= force_lo && kd - R <= force_hi) elastic_add_forces(forces, i, j, kd - R, w, a);
#pragma unroll
      for (int c = 0; c < 3; ++c) out.c[c][e_out] = elastic_update(uq[c][0], u_prev[c], qe, a[c], d);
    }
  };
  // The sponge's x and y factors of this column, once (the same product each plane).
  const T damp_xy = mine ? damp[i] * damp[g.nx + j] : T(0);
  constexpr bool one_barrier = Sh::kOneBarrier;
  auto stress_plane = [&](int k) {
    T* const at = sst + (one_barrier ? (k & 1) * 5 * E : 0);
    return ElasticStressPlane<T>{reinterpret_cast<P*>(at), reinterpret_cast<P*>(at) + E, at + 4 * E};
  };

  static_assert(Unroll == 1 || Unroll == 2, "register25d unrolls the plane loop by 1 or 2");
#if defined(__CUDA_ARCH__)
#pragma unroll Unroll
#endif
  for (int ks = kb - R; ks < ke + R + (one_barrier ? 1 : 0); ++ks) {
    const bool stresses = ks >= ks_lo && ks < ks_hi;  // this node's (for the z queue)
    const bool halo = ks >= kb && ks < ke;            // and the cross's (for the in-plane divergence)
    const int kd = one_barrier ? ks - 1 : ks;         // the plane whose divergence this iteration takes
    const int ko = kd - R;                            // and the plane it writes
    const bool write = mine && ko >= kb && ko < ke;
    // u^{n-1} and q of the plane written: loads issued now, used by the divergence.
    T u_prev[3] = {T(0), T(0), T(0)}, qe = T(0), d = T(0);
    unsigned e_out = 0;
    if (write) {
      e_out = plane_at(ko) + own32;
#pragma unroll
      for (int c = 0; c < 3; ++c) u_prev[c] = prev.c[c][e_out];
      qe = m.q[e_out];
      d = damp_xy * damp[g.nx + g.ny + ko];
    }
    // This thread's copies of plane ks have landed: u^n of plane ks + R into the queue (after
    // the divergence of ks - 1 with one barrier, which reads the queue's oldest), the tile's
    // u^n of plane ks into the wide plane.
    elastic_copies_wait();
    const P* const tile_ks = tile2 + (ks & 1) * 4 * NT + tid;  // the pairs of tile_entry(ks, v)
    auto take_next_u = [&] {
      const P t0 = tile_ks[0], t1 = tile_ks[NT];
      const T next[3] = {t0.x, t0.y, t1.x};
#pragma unroll
      for (int c = 0; c < 3; ++c) {
#pragma unroll
        for (int q = 0; q < S - 1; ++q) uq[c][q] = uq[c][q + 1];
        uq[c][S - 1] = next[c];
      }
    };
    if constexpr (!one_barrier) take_next_u();
    constexpr int now = one_barrier ? R + 1 : R;  // u^n of plane ks in the queue
    P* const wide2_ks = wide2 + (ks & 1) * W;
    T* const widez_ks = widez + (ks & 1) * W;
    if (stresses) {
      wide2_ks[own_wide] = P{uq[0][now], uq[1][now]};
      widez_ks[own_wide] = uq[2][now];
    }
    __syncthreads();  // plane ks has landed; every read of the buffers refilled below is done
    fetch_tile(ks + 1);
    fetch_wide(ks + 1);
    fetch_ring(ks + 1 + R);
    fetch_medium(ks + 1);
    elastic_copies_commit();

    // ---- S: the stresses of plane ks.
    const ElasticStressPlane<T> sst_ks = stress_plane(ks);
    const bool surface = free_top && ks == 0;
    const bool sources = ks >= stress_lo && ks <= stress_hi;  // some stress source's box reaches plane ks here
    T own[3] = {T(0), T(0), T(0)};  // s_xz, s_yz, s_zz of this thread's node
    if (stresses && mine) {
      T gr[3][3];
      elastic_register_xy<T, R, WP>(wide2_ks, widez_ks, own_wide, gr);
      const P t0 = tile_ks[0], t1 = tile_ks[NT], t2 = tile_ks[2 * NT], t3 = tile_ks[3 * NT];
      const T landed[3] = {t0.x, t0.y, t1.x};
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        T line[S];  // u^n of planes ks - R .. ks + R: the queue, or with one barrier the queue
#pragma unroll      // not yet moved on and the plane just landed
        for (int q = 0; q < S; ++q) line[q] = !one_barrier ? uq[c][q] : q < S - 1 ? uq[c][q + 1] : landed[c];
        gr[c][2] = first_derivative<T, R>(line);
      }
      const VtiNode<T> own_c{t1.y, t2.x, t2.y, t3.x, t3.y};
      const Stress6<T> s = elastic_register_stress(gr, own_c, surface, stress_src, sources, w, i, j, ks);
      own[0] = s.xz, own[1] = s.yz, own[2] = s.zz;
      if (halo) sst_ks.xa[center] = P{s.xx, s.xz}, sst_ks.ya[center] = P{s.yy, s.yz}, sst_ks.xy[center] = s.xy;
    } else if (halo) {  // beyond the x or y face
      sst_ks.xa[center] = P{T(0), T(0)}, sst_ks.ya[center] = P{T(0), T(0)}, sst_ks.xy[center] = T(0);
    }
    if (halo) {
      // The cross's stresses: the divergence reads s_xx, s_xy, s_xz along x (the arms left
      // and right of the tile) and s_xy, s_yy, s_yz along y (above and below), so each arm
      // computes and stores those three (d_z u_y, d_y u_z or d_z u_x, d_x u_z are never taken).
      const T* const medium_ks = medium + (ks & 1) * 5 * H;
      const int first = slot(ks - R);
      auto cross_stress = [&]<bool XArm>(int h) {
        int ex, ey;
        elastic_cross_column<R, TX, TY>(h, ex, ey);
        const int n = ey * EX + ex, gi = i0 - R + ex, gj = j0 - R + ey;
        P* const pair = XArm ? sst_ks.xa : sst_ks.ya;  // (s_xx, s_xz) or (s_yy, s_yz)
        if (gi >= 0 && gi < g.nx && gj >= 0 && gj < g.ny) {
          T gr[3][3];
          elastic_register_xy<T, R, WP>(wide2_ks, widez_ks, (ey + R) * WP + ex + R, gr);
          T line[3][S];
#pragma unroll
          for (int q = 0; q < S; ++q) {
            const int sl = Sh::kRingTwice || first + q < RING ? first + q : first + q - RING;
            const P v = ring2[sl * H + h];
            line[0][q] = v.x, line[1][q] = v.y, line[2][q] = ringz[sl * H + h];
          }
#pragma unroll
          for (int c = 0; c < 3; ++c) gr[c][2] = first_derivative<T, R>(line[c]);
          const P m0 = reinterpret_cast<const P*>(medium_ks)[h], m1 = reinterpret_cast<const P*>(medium_ks)[H + h];
          const VtiNode<T> cn{m0.x, m0.y, m1.x, m1.y, medium_ks[4 * H + h]};
          const Stress6<T> st = elastic_register_stress(gr, cn, surface, stress_src, sources, w, gi, gj, ks);
          pair[n] = XArm ? P{st.xx, st.xz} : P{st.yy, st.yz};
          sst_ks.xy[n] = st.xy;
        } else {  // the ghost rule beyond the x and y faces
          pair[n] = P{T(0), T(0)}, sst_ks.xy[n] = T(0);
        }
      };
#pragma unroll
      for (int s = 0; s < Sh::kCrossSlots; ++s) {
        const int h = tid + s * NT;
        if (h < 2 * R * TY) cross_stress.template operator()<true>(h);
        else if (h < H) cross_stress.template operator()<false>(h);
      }
    }
    if constexpr (one_barrier) {
      // The divergence of plane ks - 1 (its stresses were complete at the barrier), with the
      // queues still centred on its output plane; u^{n-1} and q had the stresses to arrive.
      divergence(kd, stress_plane(kd), write, e_out, u_prev, qe, d);
      take_next_u();
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) {
#pragma unroll
      for (int q = 0; q < S - 1; ++q) zq[c][q] = zq[c][q + 1];
      zq[c][S - 1] = own[c];
      // A free top's ghost plane -ks (pushed as 0 at iteration -ks, now at 2R - 2 ks) is
      // -s_cz(ks), as the stress ghost kernel writes it; static indices keep zq in registers.
      if (free_top && ks >= 1 && ks <= R) {  // planes 1 .. R only: one uniform test on the others
#pragma unroll
        for (int mm = 1; mm <= R; ++mm)
          if (ks == mm) zq[c][2 * R - 2 * mm] = T(-1) * own[c];
      }
    }
    if constexpr (!one_barrier) {
      __syncthreads();  // the stress plane is complete
      divergence(kd, sst_ks, write, e_out, u_prev, qe, d);
    }
  }
  elastic_copies_wait();  // nothing useful is in flight; no copy outlives the block
}

}  // namespace ss
