#pragma once
// Heat 3D's stream25d kernel (the fastest variant): its shape, boundary duties and the
// kernel itself. Included by heat3d_kernels.cuh, after Heat3DStepArgs.
#include <cuda_pipeline.h>

#include <cstdint>
#include <optional>

#include "sim/core/cuda_check.cuh"
#include "sim/core/pack.cuh"
#include "sim/core/pdl.cuh"
#include "sim/core/ghost3d.hpp"
#include "sim/models/heat3d/heat3d.hpp"
#include "sim/models/heat3d/heat3d_face_ghosts.cuh"
#include "sim/models/heat3d/heat3d_sync.cuh"

namespace ss {

// ---- stream25d -----------------------------------------------------------
// Micikevicius (2009) with the lessons of heat 2D's stream kernel. Each thread
// owns one 16-byte pack (4 floats or 2 doubles) of one row of a 32-pack by BY-row
// xy tile and marches it along z over a slab of planes chosen at launch: the z
// line lives in a register queue of 2R+1 packs that rotates by renaming; the x
// and y neighbours come from the current plane of a ring of RING xy planes (tile
// plus halo) in shared memory, filled with cp.async RING - R - 1 planes ahead of
// the plane the queue takes in. The copy duties of a plane (core rows, y-halo
// rows, x-halo packs) are dealt to the threads once, at the start. Two mbarriers
// per ring slot order the block instead of a __syncthreads per plane: a warp
// waits for the plane it takes in to have landed, and before fetching into a
// slot, for every warp to have read the plane there.
//
// The boundary is applied while the ring is filled, so this variant needs no
// boundary step between its time steps: ghost cells are staged from their images,
// set to the fixed value or computed from the analytic solution instead of being
// read from the field's ghost frame, which the kernel leaves as it was (the
// solver runs the explicit boundary step before anything else reads it). The
// separate step cost 58 us of a 500 us step at 512^3 on an H100: its x faces are
// 16-byte writes at both ends of every row, one DRAM page each.
//
// Measured on an H100 at 512^3, order 8, float (copy ratio, boundary included):
// scalar loads and the halo a plane ahead in registers 0.23 (H200); this ring
// with 8-row tiles 0.61 (ncu: DRAM traffic 1.3x the field's, the y-halo rows
// read again); 16-row tiles 0.71 with the separate boundary step (the default:
// 16 rows, 8 planes); the boundary staged here, no step between steps: 0.866
// periodic, 0.854 insulated, 0.882 fixed, 0.74-0.77 analytic (0.731 with the
// explicit step; 0.768-0.772 with the face ghosts precomputed, FaceGhosts; 0.82
// with the boundary code out of line and the face ghosts written by producer
// blocks, session 6). Fusing the step's stores into the kernel instead made it 4x
// slower. Session 11, the ring's barriers: a __syncthreads per plane, ring of 8
// planes fetched 3 ahead: 0.82 analytic, 0.86 periodic, 0.87 fixed, 0.85
// insulated; mbarriers per slot, ring of 9 fetched 4 ahead: 0.90, 0.98, 0.96,
// 0.93 (ring of 8 fetched 2 ahead: 0.78-0.83; of 10 fetched 4 ahead, whose slots
// are no constants of the unrolled steps: 0.75-0.77).
//
// PX, packs per thread (session 15, for the H200, where the kernel is bound by
// instruction issue): with PX = 2 each thread owns two neighbouring packs of its
// row (8 floats or 4 doubles) and a tile row of 32 packs takes 16 threads. The
// per-plane work that does not scale with the outputs (barrier waits and
// arrivals, the fetch's control, loop and address arithmetic, the window's halo
// packs: 2 loads serve 8 outputs instead of 4) is then shared by twice the
// outputs, for a z queue twice as long in registers (1 block of 256 threads per
// SM at 16 rows, up to 255 registers each).
//
// kLean (session 23): the same steps with fewer instructions a plane (the copy duties as
// predicated cp.async from an advancing source, fixed packs stored once, barriers by shared
// address; 264 instead of 292 a step in float, order 8, periodic). It wins where the SM binds
// (the H200: 0.83-0.87 of copy at 512^3 against 0.70-0.74) and loses where DRAM does (the
// H100: 0.84 against 0.94 under the analytic rule), so heat3d_device.cu picks per device
// (heat3d_stream25d_lean). Both forms write the same bits.
inline constexpr int kStream25BX = 32;  // packs per tile row

template <typename T, int R, int BY, int RING, int PX = 1>
struct Stream25Shape {
  static_assert(PX >= 1 && kStream25BX % PX == 0);
  static constexpr int kStream25BY = BY;
  static constexpr int TXT = kStream25BX / PX;    // threads per tile row
  static constexpr int kStream25Threads = TXT * BY;
  static_assert(kStream25Threads % 32 == 0, "whole warps: each arrives once on the ring's barriers");
  static constexpr int WARPS = kStream25Threads / 32;
  // __launch_bounds__'s blocks per SM: the one-pack shapes fill 512 threads; the
  // two-pack ones run one block (their ring leaves no room for two) and take the
  // registers their longer queue needs.
  static constexpr int kMinBlocks = PX == 1 ? 512 / kStream25Threads : 1;
  static constexpr int W = Pack<T>::n;            // values per pack
  static constexpr int HV = (R + W - 1) / W;      // x-halo packs per side
  static constexpr int H = HV * W;                // x-halo columns per side
  static constexpr int TW = kStream25BX * W;      // tile width in columns
  static constexpr int LW = TW + 2 * H;           // ring row width
  static constexpr int TH = kStream25BY + 2 * R;  // ring rows per plane
  static constexpr int PLANE = TH * LW;           // values per ring plane
  // Planes are fetched AHEAD planes before the queue takes them in, into the slot
  // of the plane the block read last. A plane of slack, so that a warp could
  // fetch before the slowest had read that plane, cost more (a fetch distance of
  // 3 in the ring of 9: 0.87 of copy at 512^3 against 0.91-0.97, session 11).
  static constexpr int AHEAD = RING - R - 1;
  static constexpr int XH = 2 * HV * kStream25BY;              // x-halo packs per plane
  static constexpr int ITEMS = TH * kStream25BX + XH;           // packs copied per plane
  static constexpr int PER_THREAD = (ITEMS + kStream25Threads - 1) / kStream25Threads;
  static constexpr int DUTIES = PER_THREAD + PX;  // boundary duty slots: the copy duties, then the own packs
  // The x-halo packs go to every XSTRIDE-th thread of those with a spare duty. Spread
  // (the classic form), the edge blocks' extra work on them is shared by several
  // warps; consecutive (XSTRIDE_LEAN, the lean form), one warp of a tile at an x face
  // has the ghost packs and the others none, as a warp spends as many instructions on
  // a pack whether one lane needs it or all. Measured in session 25 (docs/perf.md):
  // consecutive, the lean form gained 1.2% at 512^3 analytic on an H200; the classic
  // form lost 1-3% there on an H100.
  static constexpr int XSTRIDE = (PER_THREAD * kStream25Threads - TH * kStream25BX) / XH;
  static constexpr int XSTRIDE_LEAN = 1;
  static_assert(XSTRIDE >= 1);
  // Shared memory: the ring, then the threads' boundary duties (packs other than
  // plain 16-byte copies: where each goes with its fill kind, for every duty and
  // the own packs, and the source of each duty), then under the analytic rule,
  // per sine mode, the products table_x * table_y of those packs (16 bytes
  // each) and the z tables of the modes over the slab and R planes either side.
  static constexpr std::size_t ring_bytes = sizeof(T) * static_cast<std::size_t>(RING) * PLANE;
  static constexpr std::size_t where_bytes = (sizeof(int) * DUTIES * kStream25Threads + 15) / 16 * 16;
  static constexpr std::size_t from_bytes = sizeof(std::ptrdiff_t) * PER_THREAD * kStream25Threads;
  static constexpr std::size_t smem_bytes = ring_bytes + where_bytes + from_bytes;
  static constexpr std::size_t sine_bytes_per_mode = sizeof(Pack<T>) * DUTIES * kStream25Threads;
  static constexpr std::size_t smem_bytes_for(std::optional<int> sine_modes, int slab) {
    if (!sine_modes) return smem_bytes;
    const int modes = *sine_modes;
    const std::size_t z_tables = (sizeof(T) * modes * (slab + 2 * R) + 15) / 16 * 16;
    return smem_bytes + modes * sine_bytes_per_mode + z_tables;
  }
  static_assert(AHEAD >= 1 && LW % W == 0 && H <= kGhost);
};

// The interior image of ghost index i (i < 0 or i >= n) along an axis of n cells, mirrored
// or wrapped. ghost_of's answer where n >= kGhost (the whole grid's sides); a box's side
// may be thinner (3 planes at order 2), where ghost_of takes the high ghost n for a low one.
SS_HD SS_FORCEINLINE int stream25d_image(int i, int n, bool wrap) {
  return i < 0 ? (wrap ? i + n : -1 - i) : (wrap ? i - n : 2 * n - 1 - i);
}

// How a stream25d thread fills one pack of a ring plane, fixed for the whole run.
enum : int {
  kFillNone = 0,   // nobody reads it
  kFillCopy = 1,   // one 16-byte copy: interior row, or a ghost row's image row
  kFillFixed = 2,  // ghosts only, under the fixed rule: the fixed value
  kFillMixed = 3,  // holds x-ghost columns: value by value
  kFillSine = 4,   // ghosts only, under the analytic rule: computed from the staged products
  kFillFace = 5,   // ghosts only, under the analytic rule: one 16-byte copy from a.faces
};
// Copies and fixed packs are issued by the unrolled step; the other kinds are
// boundary duties, done by one loop per step (fill_boundary) whose code is not
// repeated per step and per duty: repeated, it overflowed the instruction cache
// (ncu: 57% of the stall cycles waiting for instructions, 0.42 of copy at 512^3
// for analytic).
inline constexpr int kFillShift = 20;  // the fill kind rides above the ring offset

// The exact solution on a pack whose x-y products are staged at `product` (one per
// mode, `stride` packs apart), at a plane whose z table values are at `zt` (`zn`
// apart): the rounding of analytic_ghost_value3d. Out of line, as the function
// below: only ghost planes and the rare computed duties need it. kLean: the kernel form
// that calls it, each with its own copy (see stream25d_fill_boundary).
template <typename T, bool kLean = false>
__device__ __noinline__ Pack<T> stream25d_sine_pack(const GhostRule3D<T>& rule, const Pack<T>* product, int stride,
                                                      const T* zt, int zn) {
  Pack<T> v;
#pragma unroll
  for (int w = 0; w < Pack<T>::n; ++w) v.v[w] = rule.offset;
  for (int m = 0; m < rule.modes; ++m) {
    const T z = zt[m * zn], amp = rule.amplitude[m];
    const Pack<T> p = product[m * stride];
#pragma unroll
    for (int w = 0; w < Pack<T>::n; ++w) v.v[w] = fma_t(amp, p.v[w] * z, v.v[w]);
  }
  return v;
}

// The boundary duties `todo` of a stream25d thread in one plane z (zoff: the
// offset of its image plane) into ring slot `slot`: computed packs and packs of
// x ghosts and interior values mixed. Out of line: inlined into each of the
// kernel's unrolled steps it made the analytic kernel's code 268 KB (110 KB for
// the other rules), more than the instruction caches hold, and cost 6% at 512^3.
// `where`, `from` and `product` point at the thread's first entry (see the kernel),
// PER_THREAD + OWN entries per thread (copy duties, then own packs: Stream25Shape).
// kBox: `mem` marks a box's x faces between ranks (bits 1, 2 of Heat3DStepArgs::memory_faces),
// whose ghost columns are copied from memory. The body is inlined into two out-of-line
// functions: the one-GPU kernel calls the one without `mem`, with the arguments it had
// before boxes existed: with `mem` added to its call and the box's terms in its plane
// expressions (3143ce4), the analytic kernel ran 8.6% slower at 512^3 on an H200, and
// apart it is back to within 1% (docs/perf.md, session 19).
template <typename T, int PER_THREAD, int THREADS, int LW, bool kSine, int OWN, bool kBox, bool kLean = false>
__device__ __forceinline__ void stream25d_fill_boundary_body(T* slot, int z, std::ptrdiff_t zoff, unsigned todo,
                                                             const int* where, const std::ptrdiff_t* from,
                                                             const Pack<T>* product, const T* zt, int zn,
                                                             const GhostRule3D<T>& rule, const T* in, int nx,
                                                             int x_first, unsigned mem) {
  constexpr int W = Pack<T>::n;
  const bool wrap = rule.boundary == Boundary::periodic;
  const bool copies = wrap || rule.boundary == Boundary::insulated;
#pragma unroll 1
  while (todo) {
    const int n = __ffs(todo) - 1;
    todo &= todo - 1;
    const int here = where[n * THREADS];
    const int kind = here >> kFillShift, offset = here & ((1 << kFillShift) - 1);
    T* to = slot + offset;
    Pack<T> computed;
    if constexpr (kSine) {
      computed = stream25d_sine_pack<T, kLean>(rule, product + n * THREADS, (PER_THREAD + OWN) * THREADS, zt, zn);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w) computed.v[w] = rule.fixed_value;
    }
    if (kind != kFillMixed) {  // ghosts only
      *reinterpret_cast<Pack<T>*>(to) = computed;
      continue;
    }
    const int x = x_first + offset % LW;
    const T* source = in + from[n * THREADS] + zoff;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const int col = x + w;
      if (col >= -kGhost && col < nx + kGhost) {
        bool in_memory = col >= 0 && col < nx;
        if constexpr (kBox) in_memory = in_memory || (col < 0 && (mem & 1u)) || (col >= nx && (mem & 2u));
        if (in_memory) __pipeline_memcpy_async(to + w, source + w, sizeof(T));
        else if (copies) __pipeline_memcpy_async(to + w, source + (stream25d_image(col, nx, wrap) - x), sizeof(T));
        else to[w] = computed.v[w];
      }
    }
  }
}

// kLean: which kernel form calls it. Each has its own copy: one callee shared by both
// changed the code ptxas made for each caller (the classic kernel's SASS differed from the
// kernel's alone, session 23).
template <typename T, int PER_THREAD, int THREADS, int LW, bool kSine, int OWN = 1, bool kLean = false>
__device__ __noinline__ void stream25d_fill_boundary(T* slot, int z, std::ptrdiff_t zoff, unsigned todo, const int* where,
                                                     const std::ptrdiff_t* from, const Pack<T>* product, const T* zt, int zn,
                                                     const GhostRule3D<T>& rule, const T* in, int nx, int x_first) {
  stream25d_fill_boundary_body<T, PER_THREAD, THREADS, LW, kSine, OWN, false, kLean>(slot, z, zoff, todo, where, from, product, zt,
                                                                              zn, rule, in, nx, x_first, 0u);
}
template <typename T, int PER_THREAD, int THREADS, int LW, bool kSine, int OWN = 1>
__device__ __noinline__ void stream25d_fill_boundary_box(T* slot, int z, std::ptrdiff_t zoff, unsigned todo,
                                                         const int* where, const std::ptrdiff_t* from,
                                                         const Pack<T>* product, const T* zt, int zn,
                                                         const GhostRule3D<T>& rule, const T* in, int nx, int x_first,
                                                         unsigned mem) {
  stream25d_fill_boundary_body<T, PER_THREAD, THREADS, LW, kSine, OWN, true>(slot, z, zoff, todo, where, from, product, zt,
                                                                             zn, rule, in, nx, x_first, mem);
}

// kSine: the analytic rule (its code kept out of the other rules' kernel, where
// even unused it cost 3% at 512^3).
// PX: packs per thread (Stream25Shape).
// kBox: a box of a distributed run: the ghosts of its faces between ranks
// (a.memory_faces) are read from the input's ghost frame, where the halo exchange wrote
// them; its domain faces are staged from the rule as the one-GPU kernel stages all six
// (a template parameter: a first, run-time, form took the one-GPU kernel from 0.90 to
// 0.83 of copy at 512^3 on an H100, analytic, and from 0.97 to 0.78 periodic, session 17).
template <typename T, int R, int BY, int RING, bool kSine, int PX = 1, bool kBox = false, bool kLean = false>
__global__ void __launch_bounds__(Stream25Shape<T, R, BY, RING, PX>::kStream25Threads,
                                  Stream25Shape<T, R, BY, RING, PX>::kMinBlocks)
    heat3d_step_stream25d(Heat3DStepArgs<T> a, int slab, const GhostRule3D<T>* rule_ptr, const GhostRule3D<T>* next_rule) {
  using S = Stream25Shape<T, R, BY, RING, PX>;
  constexpr int kStream25BY = BY, kStream25Threads = S::kStream25Threads, TXT = S::TXT;
  constexpr int W = S::W, H = S::H, LW = S::LW, Q = 2 * R + 1;
  // Blocks in the order of an (x tiles, y tiles, slabs) grid; under the analytic
  // rule the blocks past those are producers: they write the face ghosts of the
  // next step (a.faces_next, from next_rule) on SMs the tiles leave idle.
  const Grid3D& g = a.g;
  const int tiles_x = (g.nx + S::TW - 1) / S::TW, tiles_y = (g.ny + kStream25BY - 1) / kStream25BY;
  const long long tiles_xy = static_cast<long long>(tiles_x) * tiles_y;
  const long long tile_blocks = tiles_xy * ((g.nz + slab - 1) / slab);
  const long long block = blockIdx.x;
  if constexpr (kSine) {
    if (block >= tile_blocks) {
      pdl_wait();  // the slot it writes may be one the step before still reads
      const int producers = static_cast<int>(gridDim.x - tile_blocks);
      write_face_ghosts<T, R>(a.faces_next, g, *next_rule,
                              static_cast<int>(block - tile_blocks) * kStream25Threads + threadIdx.y * TXT + threadIdx.x,
                              producers * kStream25Threads, 0, 1);
      return;
    }
  }
  const int block_x = static_cast<int>((block % tiles_x + (a.x_tiles_from_middle ? tiles_x / 2 : 0)) % tiles_x), block_y = static_cast<int>(block / tiles_x % tiles_y);
  const int block_z = static_cast<int>(block / tiles_xy);
  extern __shared__ __align__(16) unsigned char stream25_smem[];
  // The rule of the input's time, for computed ghosts (raw storage: a __shared__
  // variable may not have a constructor).
  __shared__ alignas(GhostRule3D<T>) unsigned char rule_bytes[sizeof(GhostRule3D<T>)];
  GhostRule3D<T>& rule = *reinterpret_cast<GhostRule3D<T>*>(rule_bytes);
  T* ring = reinterpret_cast<T*>(stream25_smem);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TXT + tx;
  // The thread that arrives on the ring's barriers for its warp (tx == 0 with a warp per row).
  auto lane0 = [&] {
    if constexpr (TXT == 32) return tx == 0;
    else return (tid & 31) == 0;
  };
  // full[i]: slot i's plane has landed (every warp's copies and stores); empty[i]:
  // every thread has read it. Phase n of a slot's barriers is the slot's n-th plane.
  // Every thread arrives on `empty` after its own reads: racecheck does not follow a
  // lane's reads through __syncwarp to lane 0's arrival, and reported each refill of a
  // slot as a WAR hazard; the arrivals cost nothing measurable (docs/sanitizer.md).
  // The lean kernel keeps both in one array (full, then empty): one base address for
  // every barrier call.
  __shared__ std::uint64_t full_classic[RING], empty_classic[RING], barriers[2 * RING];
  std::uint64_t* const full = kLean ? barriers : full_classic;
  std::uint64_t* const empty = kLean ? barriers + RING : empty_classic;
  if (tid == 0) {
    rule = *rule_ptr;
    for (int i = 0; i < RING; ++i) {
      mbarrier_init(&full[i], S::WARPS);  // one arrival per warp
      mbarrier_init(&empty[i], S::WARPS * 32);  // one per thread
    }
  }
  __syncthreads();
  // Periodic and insulated ghosts are copies of their images, fixed ones a
  // constant, analytic ones a sum over sine modes of A_m (X_m[i] Y_m[j]) Z_m[k]:
  // every ghost is staged here, and the field's ghost frame is never read. For
  // the analytic rule each thread keeps the products X_m Y_m of the packs it
  // fills in shared memory (after the ring), so a ghost pack costs one table
  // value and one 16-byte load per mode and plane. Reading the tables on each
  // plane instead put their loads on the edge blocks' path (0.39 of copy at
  // 512^3 against 0.63 for periodic, in a first version).
  // kSine is the analytic rule: no ghost there is a copy, and the lean kernel's compiler drops
  // those paths.
  const bool wrap = !(kLean && kSine) && rule.boundary == Boundary::periodic;
  const bool copies = !(kLean && kSine) && (wrap || rule.boundary == Boundary::insulated);
  // A box's faces between ranks (kBox): their ghosts are read where they are, whole packs
  // from the ghost frame the halo exchange wrote (bit 2 axis + side of a.memory_faces).
  const unsigned mem = kBox ? a.memory_faces : 0u;
  auto mem_x = [mem, nx = g.nx](int x) { return kBox && ((x < 0 && (mem & 1u)) || (x >= nx && (mem & 2u))); };
  auto mem_y = [mem, ny = g.ny](int y) { return kBox && ((y < 0 && (mem & 4u)) || (y >= ny && (mem & 8u))); };
  constexpr bool sine = kSine;
  // where[n * threads]: the ring offset of boundary duty n of this thread (n ==
  // PER_THREAD + p: its own pack p in a ghost plane) with the fill kind above
  // kFillShift; from[n * threads]: the source of duty n within plane 0.
  int* where = reinterpret_cast<int*>(stream25_smem + S::ring_bytes) + tid;
  std::ptrdiff_t* from = reinterpret_cast<std::ptrdiff_t*>(stream25_smem + S::ring_bytes + S::where_bytes) + tid;
  Pack<T>* products = reinterpret_cast<Pack<T>*>(stream25_smem + S::smem_bytes);
  auto product = [&](int m, int n) -> Pack<T>& { return products[(m * S::DUTIES + n) * kStream25Threads + tid]; };
  // z_table[m * zn + z - (k0 - R)]: table_z of mode m at plane z of the slab or its ghost planes.
  T* z_table = reinterpret_cast<T*>(products + rule.modes * S::DUTIES * kStream25Threads);
  const int zn = slab + 2 * R, zfirst = block_z * slab - R;
  if constexpr (kSine) {
    for (int e = tid; e < rule.modes * zn; e += kStream25Threads) {
      const int m = e / zn, z = zfirst + e % zn;
      if (z < g.nz + kGhost) z_table[e] = rule.table_z[m][z + kGhost];
    }
    __syncthreads();
  }
  auto stage_products = [&](int n, int x, int y) {  // pack x .. x + W - 1 of row y
    for (int m = 0; m < rule.modes; ++m) {
      Pack<T> p;
#pragma unroll
      for (int w = 0; w < W; ++w) {
        const int col = min(max(x + w, -kGhost), g.nx + kGhost - 1);  // others are never read
        p.v[w] = rule.table_x[m][col + kGhost] * rule.table_y[m][y + kGhost];
      }
      product(m, n) = p;
    }
  };
  // The exact solution on the pack of duty n in plane z.
  auto sine_pack = [&](int n, int z) {
    return stream25d_sine_pack<T, kLean>(rule, &product(0, n), S::DUTIES * kStream25Threads, z_table + (z - zfirst), zn);
  };
  // An insulated pack of x ghosts only is its image pack in reverse: when that is
  // aligned it is copied as it is (16 bytes) and read back reversed.
  auto mirrored_pack = [&](int x) {
    const int image = x < 0 ? -x - W : 2 * g.nx - x - W;
    return copies && !wrap && (x >= g.nx || x + W <= 0) && image % W == 0 && !mem_x(x);
  };
  const int i0 = block_x * S::TW, j0 = block_y * kStream25BY;
  const int k0 = block_z * slab, k1 = min(k0 + slab, g.nz);
  const int c = i0 + tx * W * PX, j = j0 + ty;  // this thread's first column and its row
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(g.plane());
  // Copy sources are 32-bit offsets from the origin of their plane (x = y = 0): a plane of
  // the grids this kernel is launched for holds far fewer than 2^31 values (heat3d_device.cu).
  const std::ptrdiff_t origin = static_cast<std::ptrdiff_t>(g.index(0, 0, 0));

  // Copy duties, the same for every plane: the source offset within plane 0 and
  // the ring offset with the fill kind above it. Core and y-halo rows first (32
  // packs each, a warp per row), then x-halo packs (see XSTRIDE).
  // Rows that are ghosts take their image row.
  // The classic kernel (kLean false) keeps each duty's source offset within plane 0 and its
  // ring offset with the fill kind above it, and decides per duty and plane what to do.
  // The lean kernel issues the copy and face duties (bits of copy_duties, face_duties) as
  // one predicated 16-byte cp.async each, from a source base it advances by a plane per
  // fetch plus the duty's 32-bit offset within the plane (src_off), into the ring slot at
  // the duty's offset (dst_off); fixed packs (ghosts under the fixed rule) it stores into
  // every slot once, here: no later plane writes there. SASS (nvcc 13, sm_90, float, order
  // 8, periodic): 292 instructions a step, 180 of them not arithmetic, against 264 and 152
  // (session 23; docs/perf.md has where each kernel wins).
  std::ptrdiff_t src[S::PER_THREAD];
  int dst_slot[S::PER_THREAD];  // ring offset, kFillCopy or kFillFixed above kFillShift; -1: neither
  int src_off[S::PER_THREAD];  // copy: from the field's plane origin; face: within a face plane
  int dst_off[S::PER_THREAD];  // offset in a ring slot, values
  unsigned dst_byte[S::PER_THREAD];  // ... in bytes
  unsigned copy_duties = 0, face_duties = 0;
  unsigned boundary_duties = 0;  // bit n: duty n is a boundary duty (bit PER_THREAD: the own pack)
  constexpr int xstride = kLean ? S::XSTRIDE_LEAN : S::XSTRIDE;
#pragma unroll
  for (int n = 0; n < S::PER_THREAD; ++n) {
    const int e = tid + n * kStream25Threads;
    int x = 0, ry = 0, cx = 0;
    const int spare = e - S::TH * kStream25BX;
    const bool item = spare < 0 || (spare % xstride == 0 && spare / xstride < S::XH);
    if (e < S::TH * kStream25BX) {
      ry = e / kStream25BX;
      const int px = e % kStream25BX;
      x = i0 + px * W;
      cx = H + px * W;
    } else {
      const int h = spare / xstride;  // 2 HV packs per core row
      ry = R + h / (2 * S::HV);
      const int p = h % (2 * S::HV);
      x = p < S::HV ? i0 - H + p * W : i0 + S::TW + (p - S::HV) * W;
      cx = p < S::HV ? p * W : H + S::TW + (p - S::HV) * W;
    }
    const int y = j0 - R + ry;
    const bool ghost_row = y < 0 || y >= g.ny;
    const bool core_row = ry >= R && ry < R + kStream25BY;
    // Columns read from this pack: [-R, nx + R) in an interior row of the core
    // (the x neighbours), [0, nx) in the y-halo rows and in ghost rows.
    const bool read = item && y < g.ny + R && (core_row && !ghost_row ? x < g.nx + R : x < g.nx);
    const bool x_ghosts = x < 0 || x + W > g.nx;
    const int computed = sine ? kFillSine : kFillFixed;
    int kind = kFillNone;
    if (read) kind = !ghost_row && !x_ghosts ? kFillCopy : ghost_row ? (copies ? kFillCopy : computed) : kFillMixed;
    if (kind == kFillMixed && !copies && (x >= g.nx || x + W <= 0)) kind = computed;  // ghosts only
    int ys = ghost_row && copies ? stream25d_image(y, g.ny, wrap) : y;
    // A periodic pack of ghosts only, whose image pack is aligned: one 16-byte
    // copy of the image (value by value it cost 8% at 512^3).
    int xs = x;
    if (kind == kFillMixed && wrap && (x >= g.nx || x + W <= 0) && g.nx % W == 0) {
      kind = kFillCopy;
      xs = stream25d_image(x, g.nx, true);
    }
    if (kind == kFillMixed && mirrored_pack(x)) {
      kind = kFillCopy;
      xs = x < 0 ? -x - W : 2 * g.nx - x - W;
    }
    if constexpr (kBox) {  // a ghost row, or ghost columns, of faces between ranks: the pack as it is
      const bool row_mem = ghost_row && mem_y(y);
      const bool cols_mem = !ghost_row && x_ghosts && (x >= 0 || (mem & 1u)) && (x + W <= g.nx || (mem & 2u));
      if (read && (row_mem || cols_mem)) {
        kind = kFillCopy;
        xs = x;
        ys = y;
      }
    }
    if (kSine && a.faces) {  // whole ghost packs the face array holds: copied from there
      using F = FaceGhosts<T, R>;
      if (kind == kFillSine && ghost_row && y >= -R && y < g.ny + R && x >= 0 && x + W <= F::nxp(g)) {
        kind = kFillFace;
        xs = static_cast<int>(F::y_ghost(g, x, y));
      } else if (kind == kFillSine && !ghost_row && (x < 0 ? x >= -F::H : g.nx % W == 0 && x + W <= g.nx + F::H)) {
        kind = kFillFace;
        xs = static_cast<int>(F::x_ghost(g, x, y));
      }
    }
    const bool inline_kind = kind == kFillCopy || kind == kFillFixed || kind == kFillFace;
    if constexpr (!kLean) {
      src[n] = kind == kFillCopy ? static_cast<std::ptrdiff_t>(g.index(xs, ys, 0)) : kind == kFillFace ? xs : 0;
      dst_slot[n] = inline_kind ? ry * LW + cx + (kind << kFillShift) : -1;
    }
    if constexpr (kLean) {
      src_off[n] = kind == kFillCopy ? static_cast<int>(static_cast<std::ptrdiff_t>(g.index(xs, ys, 0)) - origin)
                   : kind == kFillFace ? xs : 0;
      dst_off[n] = ry * LW + cx;
      dst_byte[n] = static_cast<unsigned>(dst_off[n] * sizeof(T));
      if (kind == kFillCopy) copy_duties |= 1u << n;
      if (kind == kFillFace) face_duties |= 1u << n;
      if (kind == kFillFixed) {
#pragma unroll 1
        for (int si = 0; si < RING; ++si) {
          Pack<T> v;
#pragma unroll
          for (int w = 0; w < W; ++w) v.v[w] = rule.fixed_value;
          *reinterpret_cast<Pack<T>*>(ring + si * S::PLANE + dst_off[n]) = v;
        }
      }
    }
    if (kind != kFillNone && !inline_kind) {
      boundary_duties |= 1u << n;
      where[n * kStream25Threads] = ry * LW + cx + (kind << kFillShift);
      from[n * kStream25Threads] = static_cast<std::ptrdiff_t>(g.index(xs, ys, 0));
      if (sine) stage_products(n, x, y);
    }
  }
  // Starts the copy of plane k0 + d into the ring (one cp.async group, possibly
  // empty); values of computed ghosts are stored straight away. A plane past the
  // last is a ghost plane: only the threads' own packs are ever read from it.
  // inside: the thread has an output (its first pack does); own pack p has one
  // where c + p W < nx. The others are still read from the ring, as x neighbours.
  const bool inside = c < g.nx && j < g.ny;
  auto pack_inside = [inside, c, nx = g.nx](int p) { return p == 0 ? inside : inside && c + p * W < nx; };
  constexpr int WP = PX + 2 * S::HV;  // packs in the x window: halo, own packs, halo
  unsigned reversed = 0;  // bit v: pack v of this thread's x window is a mirrored pack
#pragma unroll
  for (int v = 0; v < WP; ++v)
    if (mirrored_pack(c - H + v * W)) reversed |= 1u << v;
  const int own = (R + ty) * LW + H + tx * W * PX;  // this thread's first pack in a ring plane
#pragma unroll
  for (int p = 0; p < PX; ++p) {
    if (!copies && pack_inside(p)) {  // the own pack in a ghost plane past the last: computed
      boundary_duties |= 1u << (S::PER_THREAD + p);
      where[(S::PER_THREAD + p) * kStream25Threads] = own + p * W + ((sine ? kFillSine : kFillFixed) << kFillShift);
      if (sine) stage_products(S::PER_THREAD + p, c + p * W, j);
    }
  }
  auto fixed_pack = [&] {  // from shared memory when needed: a register is dear here
    Pack<T> p;
#pragma unroll
    for (int w = 0; w < W; ++w) p.v[w] = rule.fixed_value;
    return p;
  };
  // The boundary duties of plane z (zoff: the offset of its image plane) into ring
  // slot `slot`: the duties' in an interior plane, the own pack's in a ghost plane.
  auto fill_boundary = [&](T* slot, int z, std::ptrdiff_t zoff) {
    constexpr unsigned own_duties = ((1u << PX) - 1) << S::PER_THREAD;
    bool all_duties = z < g.nz || copies;
    if constexpr (kBox) all_duties = all_duties || (z >= g.nz && (mem & 32u));  // a ghost plane the exchange wrote
    const unsigned todo = boundary_duties & (all_duties ? (1u << S::PER_THREAD) - 1 : own_duties);
    if (!todo) return;
    if constexpr (kBox)
      stream25d_fill_boundary_box<T, S::PER_THREAD, kStream25Threads, LW, kSine, PX>(
          slot, z, zoff, todo, where, from, &product(0, 0), z_table + (z - zfirst), zn, rule, a.in, g.nx, i0 - H, mem);
    else
      stream25d_fill_boundary<T, S::PER_THREAD, kStream25Threads, LW, kSine, PX, kLean>(
          slot, z, zoff, todo, where, from, &product(0, 0), z_table + (z - zfirst), zn, rule, a.in, g.nx, i0 - H);
  };
  const std::ptrdiff_t face_plane = FaceGhosts<T, R>::plane(g);
  // The ring slot of plane k0 + gi Q + off and the parity of its phase in that
  // slot's barriers. In the unrolled steps `off` is a constant, and with a ring of
  // Q planes so are the slot and (but for gi's parity) the phase.
  auto slot_of = [&](int gi, int off) -> int {
    if constexpr (RING == Q) return (off % Q + Q) % Q;
    else return static_cast<int>(static_cast<unsigned>(gi * Q + off) % RING);
  };
  auto parity_of = [&](int gi, int off) -> unsigned {
    if constexpr (RING == Q) return static_cast<unsigned>(gi + (off >= 0 ? off / Q : -((Q - 1 - off) / Q))) & 1U;
    else return static_cast<unsigned>(gi * Q + off) / RING & 1U;
  };
  // A plane past the slab's last step (z >= k1 + R) is neither fetched nor arrived
  // for: no warp waits for it, and an arrival whose phase nobody waits on is what
  // compute-sanitizer's synccheck reported as "Missing wait" (docs/sanitizer.md).
  // Fetches come in plane order, one per plane from k0: each advances the sources by a plane.
  const T* next_src = kLean ? a.in + origin + static_cast<std::ptrdiff_t>(k0) * plane : nullptr;
  const T* next_face = kLean && kSine && a.faces ? a.faces + static_cast<std::ptrdiff_t>(k0) * face_plane : nullptr;
  const unsigned ring_s = kLean ? shared_address(ring) : 0u, full_s = kLean ? shared_address(full) : 0u;
  const unsigned empty_s = full_s + 8 * RING;
  auto fetch_plane = [&](int gi, int off) {
    if constexpr (kLean) {
      const int z = k0 + gi * Q + off, si = slot_of(gi, off);
      if (z >= k1 + R) return;
      T* slot = ring + si * S::PLANE;
      const unsigned slot_s = ring_s + static_cast<unsigned>(si * S::PLANE * sizeof(T));
      const T* src = next_src;
      next_src += plane;
      const T* face = next_face;
      if constexpr (kSine) next_face += face_plane;
      auto copy_rows = [&](const T* from, unsigned faces) {
        auto issue = [&](bool with_faces) {
  #pragma unroll
          for (int n = 0; n < S::PER_THREAD; ++n) {
            const unsigned to = slot_s + dst_byte[n];
            // A duty copies from the field or (kSine) from the face array: one copy, its base chosen.
            const T* base = with_faces && (faces & (1u << n)) ? face : from;
            copy16_async_if(to, slot + dst_off[n], base + src_off[n], (copy_duties | faces) & (1u << n));
          }
        };
        // Only the threads of the tiles at the domain's x and y faces have face duties: the
        // others take the plain copies. The choice is the warp's (every lane fetches each
        // plane): a warp with a face duty in any lane issues one set of copies, not both.
        if (kSine && __any_sync(0xffffffffu, faces != 0u)) issue(true);
        else issue(false);
      };
      if (z < g.nz) {
        copy_rows(src, face_duties);
      } else {
        // A ghost plane past the field's last (the slab's last planes only): the image plane's
        // rows under periodic and insulated, or (kBox) the rows the exchange wrote there. The
        // one-GPU kernel's expressions stay apart from the box's: shared (with `|| plane_mem`,
        // false there), they changed the one-GPU kernel's code (stream25d_fill_boundary_body).
        bool plane_mem = false;
        if constexpr (kBox) plane_mem = mem & 32u;
        if (!plane_mem) src = a.in + origin + stream25d_image(z, g.nz, wrap) * plane;
        if (copies || plane_mem) copy_rows(src, 0u);  // no face ghosts: only the own packs are read
      }
      // In a ghost plane under periodic or insulated the mixed duties run too: they hold own packs.
      if (boundary_duties) fill_boundary(slot, z, src - a.in - origin);
      mbarrier_arrive_copies_at(full_s + 8 * si);
      __syncwarp();
      if (lane0()) mbarrier_arrive_at(full_s + 8 * si);  // after the warp's stores and copy arrivals
    } else {
      const int z = k0 + gi * Q + off, si = slot_of(gi, off);
      if (z >= k1 + R) return;
      T* slot = ring + si * S::PLANE;
      // The one-GPU kernel's expressions stay apart from the box's (kBox): shared (with
      // `|| plane_mem`, false there), they changed the one-GPU kernel's code (see
      // stream25d_fill_boundary_body).
      bool plane_mem = false;  // a ghost plane the exchange wrote
      std::ptrdiff_t zoff;
      bool rows = z < g.nz || copies;
      if constexpr (kBox) {
        plane_mem = z >= g.nz && (mem & 32u);
        zoff = (z < g.nz || plane_mem ? z : stream25d_image(z, g.nz, wrap)) * plane;
        rows = rows || plane_mem;
      } else {
        zoff = (z < g.nz ? z : stream25d_image(z, g.nz, wrap)) * plane;
      }
      if (rows) {
  #pragma unroll
        for (int n = 0; n < S::PER_THREAD; ++n) {
          if (dst_slot[n] < 0) continue;
          T* to = slot + (dst_slot[n] & ((1 << kFillShift) - 1));
          if (dst_slot[n] >> kFillShift == kFillCopy) __pipeline_memcpy_async(to, a.in + src[n] + zoff, 16);
          else if (kBox && plane_mem) continue;  // a ghost plane: only the own packs (copies) are read
          else if (kSine) __pipeline_memcpy_async(to, a.faces + src[n] + z * face_plane, 16);  // kFillFace
          else *reinterpret_cast<Pack<T>*>(to) = fixed_pack();  // one store: cheaper than a trip through fill_boundary
        }
      }
      // In a ghost plane under periodic or insulated the mixed duties run too: they hold own packs.
      if (boundary_duties) fill_boundary(slot, z, zoff);
      mbarrier_arrive_copies(&full[si]);
      __syncwarp();
      if (lane0()) mbarrier_arrive(&full[si]);  // after the warp's stores and copy arrivals
    }
  };
  // Everything above reads only the launch's arguments, the rule and its tables: under a
  // programmatic dependent launch (sim/core/pdl.cuh) it overlaps the previous step's tail.
  // From here on the fields and the face array are read and written.
  pdl_wait();
#pragma unroll
  for (int d = 0; d < R + S::AHEAD; ++d) fetch_plane(0, d);
  // q[p][(m + s) % Q] holds own pack p of plane k + m - R at step s of an unrolled
  // group of Q planes. Planes k0 - R .. k0 - 1 come straight from global memory
  // (only the thread's own columns of them are used: ghost planes take their image
  // or the fixed value); planes k0 .. k0 + R - 1 from the ring, once they have
  // landed, because their x ghosts are also read, as x neighbours (so are own
  // packs past the last column, by the pack before them).
  Pack<T> q[PX][Q];
  const T* own_col = a.in + g.index(inside ? c : 0, inside ? j : 0, 0);
#pragma unroll
  for (int p = 0; p < PX; ++p) {
    if (pack_inside(p)) {
#pragma unroll
      for (int m = 0; m < R; ++m) {
        const int z = k0 - R + m;
        if (z >= 0 || (kBox && (mem & 16u))) q[p][m] = *reinterpret_cast<const Pack<T>*>(own_col + p * W + z * plane);
        else if (copies) q[p][m] = *reinterpret_cast<const Pack<T>*>(own_col + p * W + stream25d_image(z, g.nz, wrap) * plane);
        else q[p][m] = sine ? sine_pack(S::PER_THREAD + p, z) : fixed_pack();
      }
    }
  }
  stream25d_sync();
#pragma unroll
  for (int m = R; m < 2 * R; ++m) {  // planes k0 .. k0 + R - 1, in slots 0 .. R - 1
    mbarrier_wait(&full[m - R], 0);
    if (inside) {
#pragma unroll
      for (int p = 0; p < PX; ++p) q[p][m] = *reinterpret_cast<const Pack<T>*>(ring + (m - R) * S::PLANE + own + p * W);
    }
  }
  T* dst = a.out + g.index(c, j, k0);
  for (int s0 = 0, gi = 0; k0 + s0 < k1; s0 += Q, ++gi) {
#pragma unroll
    for (int s = 0; s < Q; ++s) {
      const int d = s0 + s;  // this step's plane is k0 + d
      if (k0 + d >= k1) break;
      stream25d_sync();
      if constexpr (kLean) mbarrier_wait_at(full_s + 8 * slot_of(gi, s + R), parity_of(gi, s + R));  // plane k0 + d + R has landed
      else mbarrier_wait(&full[slot_of(gi, s + R)], parity_of(gi, s + R));
#pragma unroll
      for (int p = 0; p < PX; ++p)
        q[p][(2 * R + s) % Q] = *reinterpret_cast<const Pack<T>*>(ring + slot_of(gi, s + R) * S::PLANE + own + p * W);
      // The fetch below reuses the slot of plane d - 1: every warp has read it.
      constexpr int reused = R + S::AHEAD - RING;
      if (d + reused >= 0) {
        if constexpr (kLean) mbarrier_wait_at(empty_s + 8 * slot_of(gi, s + reused), parity_of(gi, s + reused));
        else mbarrier_wait(&empty[slot_of(gi, s + reused)], parity_of(gi, s + reused));
      }
      fetch_plane(gi, s + R + S::AHEAD);
      if (inside) {
        const T* ps = ring + slot_of(gi, s) * S::PLANE + own;
        // x: columns c - H .. c + PX W + H - 1 of row j (the own packs from the queue)
        T win[WP * W];
#pragma unroll
        for (int v = 0; v < WP; ++v) {
          const bool own_pack = v >= S::HV && v < S::HV + PX;
          const Pack<T> pk = own_pack ? q[own_pack ? v - S::HV : 0][(R + s) % Q]
                                      : *reinterpret_cast<const Pack<T>*>(ps - H + v * W);
#pragma unroll
          for (int w = 0; w < W; ++w) win[v * W + w] = pk.v[w];
        }
        if (reversed) {  // only threads at an insulated x face
          // Own packs hold interior columns: never mirrored, so (said to the lean kernel) the
          // window's copies of the queue's registers need no moves.
#pragma unroll
          for (int v = 0; v < WP; ++v)
            if ((!kLean || v < S::HV || v >= S::HV + PX) && (reversed & (1u << v))) {
#pragma unroll
              for (int w = 0; w < W / 2; ++w) {
                const T t = win[v * W + w];
                win[v * W + w] = win[v * W + W - 1 - w];
                win[v * W + W - 1 - w] = t;
              }
            }
        }
#pragma unroll
        for (int p = 0; p < PX; ++p) {
          Pack<T> ys[Q];  // y: rows j - R .. j + R of columns c + p W .. c + p W + W - 1
#pragma unroll
          for (int m = 0; m < Q; ++m)
            if (m != R) ys[m] = *reinterpret_cast<const Pack<T>*>(ps + p * W + (m - R) * LW);
          Pack<T> out;
#pragma unroll
          for (int w = 0; w < W; ++w) {
            T row[Q], col[Q], dep[Q];
#pragma unroll
            for (int m = 0; m < Q; ++m) {
              row[m] = win[H + p * W + w + m - R];
              col[m] = m == R ? row[m] : ys[m].v[w];
              dep[m] = q[p][(m + s) % Q].v[w];
            }
            out.v[w] = heat3d_point<T, R>(row, col, dep, a.c);
          }
          T* o = (kLean ? dst : dst + d * plane) + p * W;
          if (c + p * W + W <= g.nx) {
            *reinterpret_cast<Pack<T>*>(o) = out;
          } else {
#pragma unroll
            for (int w = 0; w < W; ++w)
              if (c + p * W + w < g.nx) o[w] = out.v[w];
          }
        }
      }
      if constexpr (kLean) {
        mbarrier_arrive_at(empty_s + 8 * slot_of(gi, s));  // plane d read by this thread
        dst += plane;
      } else {
        mbarrier_arrive(&empty[slot_of(gi, s)]);
      }
    }
  }
  pdl_trigger();  // the next step may be scheduled now; it waits for this grid in pdl_wait
  // Every phase a thread arrives on is waited on before the block ends (synccheck's
  // "Missing wait", docs/sanitizer.md): the `empty` phases of the slab's last planes,
  // which no later fetch waited for.
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
