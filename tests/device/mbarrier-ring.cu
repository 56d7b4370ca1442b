// heat 3D stream25d's ring of planes with nothing else, to show what compute-sanitizer
// reports on it (docs/sanitizer.md). A block of 4 warps streams PLANES planes of 128
// floats through a ring of RING shared-memory slots, fetching AHEAD planes ahead: each
// thread copies its element of a plane with cp.async, then arrives on the slot's `full`
// mbarrier through cp.async.mbarrier.arrive and (one lane per warp, after __syncwarp) a
// plain arrive; a warp waits on `full` before reading the plane, and every thread reads
// the element of a thread in ANOTHER warp, so the ring carries data across warps; after
// reading, one lane per warp arrives on the slot's `empty` mbarrier, and a warp waits on
// `empty` before fetching a later plane into that slot. These are the calls and the
// order of heat3d_stream25d.cuh.
//   mode 0  the ring as stream25d has it now (no arrival for planes past the last)
//   mode 1  mode 0 plus the arrivals stream25d made for planes past the end, whose
//           phases no thread waits on (what it did before the fix)
//   mode 2  the block-synchronous ring: per plane cp.async.wait_all and __syncthreads,
//           no mbarrier (stream25d's pre-sm_80 path)
//   mode 3  mode 0, and at the end each warp waits on the phases of `empty` that the
//           last planes completed (every arrival's phase is then waited on)
//   mode 4  mode 3, then mbarrier.inval of every barrier after a block barrier
//   mode 5  mode 2 with __pipeline_wait_prior(0) instead of cp.async.wait_all: wrong,
//           as copies never committed to a group are not waited for (racecheck sees it)
//   mode 6  the ring through libcu++ (cuda::barrier, cuda::memcpy_async, which issues
//           the same cp.async.mbarrier.arrive), every thread arriving, as its docs show
//   mode 9  mode 3 with the ring in dynamic shared memory (the barriers static), as stream25d
//   (-DRING_SLOTS=9 -DRING_AHEAD=4 builds stream25d's ring depth and fetch distance)
//   mode 8  mode 3 with 16-byte copies (a float4 per thread, as stream25d's packs)
//   mode 7  mode 3 with every thread arriving (barrier count = threads) instead of one
//           lane per warp after __syncwarp
// Modes 10-19 are stream25d's tile ring (ring_kernel_tile): a block of 32 x BY threads
// (BY = THREADS / 32, 16 by default as stream25d in float) streams planes of a tile of
// BY + 2R rows of 32 float4 packs (R = 4) plus an x-halo pack either side of each core
// row, through a ring of 9 slots in dynamic shared memory fetched 4 ahead, the mbarriers
// static; the copy duties are dealt to the threads as stream25d deals them (a warp per
// row, then the x-halo packs to every XSTRIDE-th thread with a spare duty, so threads
// of other rows fetch them). The steps run in stream25d's order: wait for plane d + R
// and read the own pack from it (the register queue), wait on `empty` of plane d - 1,
// fetch plane d + 8 into that slot, read plane d (the 2R y neighbours; from mode 11 the
// x window), arrive on `empty` of plane d; no fetch or arrival past the last plane, and
// every `empty` phase waited on before the end. Each mode adds one of stream25d's
// features:
//   mode 10  every duty a 16-byte cp.async; no x halo (the y neighbours and the queue only)
//   mode 11  mode 10 plus the x-halo packs, fetched by threads of other rows, read in the
//            x window
//   mode 12  mode 11 with the y-halo rows above the tile stored plainly (a register from a
//            global load, then a 16-byte st.shared), as the fixed packs
//   mode 13  mode 11 with the x-halo packs filled by a __noinline__ duty function, value by
//            value: a 4-byte cp.async or a plain store (stream25d_fill_boundary's mixed packs)
//   mode 14  modes 12 and 13 together (stream25d under the fixed or analytic rule)
//   mode 15  mode 11 with every copy an L2::cache_hint cp.async (createpolicy evict_first;
//            docs/perf.md's "illegal instruction" with hinted ring copies)
//   mode 16  mode 11 in stream25d's unrolled steps: groups of 9, each slot and parity a constant
//   mode 17  mode 14 in the unrolled steps (the closest to stream25d under the fixed rule)
//   mode 18  mode 15 in the unrolled steps: nvcc 13.0's ptxas emits hinted LDGSTS here that
//            read UR0, which nothing writes (tests/device/sass-desc.py; docs/sanitizer.md)
//   mode 19  mode 10 without the queue: no read of plane d + R at step d; each thread reads
//            its own pack of plane d with the y neighbours instead (every read of a slot
//            then comes in the step that arrives on its `empty`)
//   mode 20  mode 10 with every thread arriving on `empty` (count = threads), no __syncwarp
//            and lane-0 arrival: each reader's own arrival orders its reads
//   mode 21  mode 14 (plain stores, __noinline__ duties, x halo) with mode 20's arrivals
// Each mode runs 200 times over 264 blocks with planes of random values, and every
// thread's weighted sum is compared with the host's. Run it plain and under each tool:
//   nvcc -std=c++17 -arch=sm_90 -lineinfo -o ring tests/device/mbarrier-ring.cu
//   ./ring MODE [RUNS [THREADS [SPREAD [EARLY [BLOCKS [NX]]]]]], e.g. ./ring 0 200 512 8 1, and
//   the same under compute-sanitizer --tool racecheck (and synccheck); tests/device/race-check.sh
//   runs every mode so. Modes 10-19 ignore SPREAD and EARLY; NX < 128 leaves threads
//   past column NX of the tile reading nothing (stream25d's partial tile), as their `inside`.
#include <cuda/barrier>
#include <cuda_pipeline.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef RING_SLOTS
#define RING_SLOTS 4  // stream25d: 9 (float, orders 6 and 8) or 8
#endif
#ifndef RING_AHEAD
#define RING_AHEAD 2  // stream25d: 4 or 3
#endif
constexpr int kMaxThreads = 512, kPlanes = 40, kRing = RING_SLOTS, kAhead = RING_AHEAD;
// Set from the command line: threads per block (4 or 16 warps, as stream25d), how many
// other warps' elements each thread reads per plane (stream25d's y neighbours: up to 8),
// and EARLY: each thread also reads plane p + EARLY's slot at step p (0: no such read;
// stream25d's queue takes plane d + R at step d, R = 4 steps before it arrives on that
// slot's `empty`; EARLY must stay below RING_AHEAD, the plane must have been fetched).

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
__device__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
__device__ void mbarrier_arrive_copies(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(shared_address(bar)) : "memory");
}
__device__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "waiting:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra waiting;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}

__global__ void ring_kernel(const float* __restrict__ in, float* __restrict__ out, int mode, int spread, int early) {
  const int kThreads = blockDim.x;
  __shared__ float static_ring[kRing][kMaxThreads];
  extern __shared__ float dynamic_ring[];  // mode 9: the ring in dynamic shared memory, as stream25d's
  auto ring = mode == 9 ? reinterpret_cast<float(*)[kMaxThreads]>(dynamic_ring) : static_ring;
  __shared__ std::uint64_t full[kRing], empty[kRing];
  const int t = threadIdx.x, lane = t % 32;
  const float* planes = in + static_cast<std::size_t>(blockIdx.x) * kPlanes * kThreads;
  if (mode != 2 && mode != 5) {
    if (t == 0)
      for (int s = 0; s < kRing; ++s) {
        mbarrier_init(&full[s], mode == 7 ? kThreads : kThreads / 32);
        mbarrier_init(&empty[s], mode == 7 ? kThreads : kThreads / 32);
      }
    __syncthreads();
  }
  auto fetch = [&](int p) {
    const int s = p % kRing;
    if (p < kPlanes) __pipeline_memcpy_async(&ring[s][t], planes + p * kThreads + t, sizeof(float));
    if (mode == 2 || mode == 5 || (p >= kPlanes && mode != 1)) return;
    mbarrier_arrive_copies(&full[s]);
    if (mode == 7) {
      mbarrier_arrive(&full[s]);
      return;
    }
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&full[s]);
  };
  for (int p = 0; p < kAhead; ++p) fetch(p);
  float acc = 0;
  for (int p = 0; p < kPlanes; ++p) {
    const int s = p % kRing;
    if (mode == 2 || mode == 5) {
      if (mode == 2) asm volatile("cp.async.wait_all;" ::: "memory");
      else __pipeline_wait_prior(0);
      __syncthreads();
    } else {
      mbarrier_wait(&full[s], (p / kRing) & 1u);
    }
    for (int k = 1; k <= spread; ++k) acc += ring[s][(t + 32 * k) % kThreads] * static_cast<float>(p + k);  // other warps' elements
    if (early && p + early < kPlanes && mode != 2 && mode != 5) {  // a later plane, R steps early in stream25d
      mbarrier_wait(&full[(p + early) % kRing], ((p + early) / kRing) & 1u);
      acc += ring[(p + early) % kRing][t] * 0.5f;
    }
    if (mode != 2 && mode != 5) {
      if (mode == 7) {
        mbarrier_arrive(&empty[s]);
      } else {
        __syncwarp();
        if (lane == 0) mbarrier_arrive(&empty[s]);
      }
      const int q = p + kAhead;  // the plane fetched next goes into the slot of plane q - kRing
      if (q >= kRing && q < kPlanes + kRing) mbarrier_wait(&empty[q % kRing], ((q - kRing) / kRing) & 1u);
    }
    fetch(p + kAhead);
  }
  if (mode == 3 || mode == 4 || mode == 7 || mode == 9) {  // the phases of `empty` nobody waited on: planes kPlanes + kRing - kAhead .. kPlanes - 1
    for (int p = kPlanes + kRing - kAhead - kRing; p < kPlanes; ++p)
      if (p >= 0 && p + kRing >= kPlanes + kRing - kAhead) mbarrier_wait(&empty[p % kRing], (p / kRing) & 1u);
  }
  if (mode == 4) {
    __syncthreads();
    if (t == 0)
      for (int s = 0; s < kRing; ++s) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(shared_address(&full[s])) : "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(shared_address(&empty[s])) : "memory");
      }
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  out[blockIdx.x * kThreads + t] = acc;
}

// Mode 8: mode 3 with 16-byte cp.async (each thread a float4; element 0 carries the value).
__global__ void ring_kernel16(const float* __restrict__ in, float* __restrict__ out, int spread, int early) {
  const int kThreads = blockDim.x, t = threadIdx.x, lane = t % 32;
  __shared__ float4 ring[kRing][kRing > 4 ? 128 : kMaxThreads];  // a deep ring: 128 threads (48 KB of static smem)
  __shared__ std::uint64_t full[kRing], empty[kRing];
  const float* planes = in + static_cast<std::size_t>(blockIdx.x) * kPlanes * kThreads;
  if (t == 0)
    for (int s = 0; s < kRing; ++s) {
      mbarrier_init(&full[s], kThreads / 32);
      mbarrier_init(&empty[s], kThreads / 32);
    }
  __syncthreads();
  auto fetch = [&](int p) {
    if (p >= kPlanes) return;
    const int s = p % kRing;
    // 16 bytes from a float4-aligned source: this thread's value and three of its neighbours'
    __pipeline_memcpy_async(&ring[s][t], reinterpret_cast<const float4*>(planes + p * kThreads) + t / 4, 16);
    mbarrier_arrive_copies(&full[s]);
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&full[s]);
  };
  for (int p = 0; p < kAhead; ++p) fetch(p);
  float acc = 0;
  for (int p = 0; p < kPlanes; ++p) {
    const int s = p % kRing;
    mbarrier_wait(&full[s], (p / kRing) & 1u);
    for (int k = 1; k <= spread; ++k) {
      const int u = (t + 32 * k) % kThreads;
      const float4 v = ring[s][u];
      acc += (&v.x)[u % 4] * static_cast<float>(p + k);
    }
    if (early && p + 1 < kPlanes) {
      mbarrier_wait(&full[(p + 1) % kRing], ((p + 1) / kRing) & 1u);
      const float4 v = ring[(p + 1) % kRing][t];
      acc += (&v.x)[t % 4] * 0.5f;
    }
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&empty[s]);
    const int q = p + kAhead;
    if (q >= kRing && q < kPlanes + kRing) mbarrier_wait(&empty[q % kRing], ((q - kRing) / kRing) & 1u);
    fetch(q);
  }
  for (int p = kPlanes - kAhead; p < kPlanes; ++p) mbarrier_wait(&empty[p % kRing], (p / kRing) & 1u);
  out[blockIdx.x * kThreads + t] = acc;
}

// Mode 6: the same ring through libcu++'s barrier and memcpy_async.
__global__ void ring_kernel_libcu(const float* __restrict__ in, float* __restrict__ out, int spread, int early) {
  using Barrier = cuda::barrier<cuda::thread_scope_block>;
  const int kThreads = blockDim.x, t = threadIdx.x;
  __shared__ float ring[kRing][kMaxThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init  // libcu++'s documented way: init() below
  __shared__ Barrier full[kRing], empty[kRing];
  const float* planes = in + static_cast<std::size_t>(blockIdx.x) * kPlanes * kThreads;
  if (t == 0)
    for (int s = 0; s < kRing; ++s) {
      init(&full[s], kThreads);
      init(&empty[s], kThreads);
    }
  __syncthreads();
  auto fetch = [&](int p) {
    if (p >= kPlanes) return;
    const int s = p % kRing;
    cuda::memcpy_async(&ring[s][t], planes + p * kThreads + t, sizeof(float), full[s]);
    (void)full[s].arrive();
  };
  for (int p = 0; p < kAhead; ++p) fetch(p);
  float acc = 0;
  for (int p = 0; p < kPlanes; ++p) {
    const int s = p % kRing;
    full[s].wait_parity((p / kRing) & 1);
    for (int k = 1; k <= spread; ++k) acc += ring[s][(t + 32 * k) % kThreads] * static_cast<float>(p + k);
    if (early && p + 1 < kPlanes) {
      full[(p + 1) % kRing].wait_parity(((p + 1) / kRing) & 1);
      acc += ring[(p + 1) % kRing][t] * 0.5f;
    }
    (void)empty[s].arrive();
    const int q = p + kAhead;
    if (q >= kRing && q < kPlanes + kRing) empty[q % kRing].wait_parity(((q - kRing) / kRing) & 1);
    fetch(q);
  }
  for (int p = kPlanes - kAhead; p < kPlanes; ++p) empty[p % kRing].wait_parity((p / kRing) & 1);
  out[blockIdx.x * kThreads + t] = acc;
}

// ---- Modes 10-19: stream25d's tile ring --------------------------------------------
constexpr int kTileR = 4, kTileW = 4;                    // radius; floats per pack
constexpr int kTileH = kTileW, kTileTW = 32 * kTileW;    // x-halo columns per side; tile width
constexpr int kTileLW = kTileTW + 2 * kTileH;            // ring row width (floats)
constexpr int kTileRing = 9;  // stream25d in float, order 8: fetched kTileRing - kTileR - 1 = 4 planes ahead
constexpr int kTileSteps = 29;                           // steps per block (stream25d's 29-plane grids)
constexpr int kTilePlanes = kTileSteps + kTileR;         // ring planes per block: the steps and R past them
constexpr int kTileMaxDuties = 3;                        // PER_THREAD for 8 or 16 rows
struct TileShape {                                       // stream25d's Stream25Shape at run time
  int by, threads, th, plane, xh, per_thread, xstride;
  __host__ __device__ explicit TileShape(int threads_) : by(threads_ / 32), threads(threads_), th(by + 2 * kTileR), plane(th * kTileLW), xh(2 * by) {
    per_thread = (th * 32 + xh + threads - 1) / threads;
    xstride = (per_thread * threads - th * 32) / xh;
  }
  std::size_t smem_bytes() const { return sizeof(float) * (static_cast<std::size_t>(kTileRing) * plane + kTileMaxDuties * threads); }
};
__host__ __device__ bool tile_x_halo(int mode) { return mode >= 11 && mode != 19 && mode != 20; }
// Duty n of thread tid (stream25d's deal): ring offset of its pack, or -1.
__host__ __device__ int tile_duty(const TileShape& S, int tid, int n, bool x_halo) {
  const int e = tid + n * S.threads;
  if (e < S.th * 32) return (e / 32) * kTileLW + kTileH + (e % 32) * kTileW;
  const int spare = e - S.th * 32;
  if (!x_halo || spare % S.xstride != 0 || spare / S.xstride >= S.xh) return -1;
  const int h = spare / S.xstride;
  return (kTileR + h / 2) * kTileLW + (h % 2 == 0 ? 0 : kTileH + kTileTW);
}
__device__ std::uint64_t l2_evict_first_policy() {
  std::uint64_t p;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// Mode 13/14's duties, out of line as stream25d_fill_boundary: the packs `todo` (ring
// offsets in `where`, one entry per duty, `threads` apart), value by value: even values
// by a 4-byte cp.async, odd ones by a plain store of a value loaded from global memory.
__device__ __noinline__ void tile_fill_boundary(float* slot, const float* plane_in, unsigned todo, const int* where, int threads) {
#pragma unroll 1
  while (todo) {
    const int n = __ffs(todo) - 1;
    todo &= todo - 1;
    const int offset = where[n * threads];
#pragma unroll
    for (int w = 0; w < kTileW; ++w) {
      if (w % 2 == 0) __pipeline_memcpy_async(slot + offset + w, plane_in + offset + w, sizeof(float));
      else slot[offset + w] = plane_in[offset + w];
    }
  }
}
// in: per block kTilePlanes images of a ring plane; out: each thread's weighted sum.
template <bool kConstSlots>
__global__ void __launch_bounds__(512, 1) ring_kernel_tile(const float* __restrict__ in, float* __restrict__ out, int mode, int nx) {
  const TileShape S(blockDim.x * blockDim.y);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
  const bool x_halo = tile_x_halo(mode), queue = mode != 19, every_thread_empty = mode == 20 || mode == 21,
             plain_rows = mode == 12 || mode == 14 || mode == 17 || mode == 21,
             noinline = mode == 13 || mode == 14 || mode == 17 || mode == 21,
             hint = mode == 15 || mode == 18;
  extern __shared__ __align__(16) float tile_smem[];
  float* ring = tile_smem;
  int* where = reinterpret_cast<int*>(tile_smem + static_cast<std::size_t>(kTileRing) * S.plane) + tid;
  __shared__ std::uint64_t full[kTileRing], empty[kTileRing];
  if (tid == 0)
    for (int i = 0; i < kTileRing; ++i) {
      mbarrier_init(&full[i], S.by);  // one arrival per warp
      mbarrier_init(&empty[i], every_thread_empty ? S.threads : S.by);
    }
  __syncthreads();
  const float* planes = in + static_cast<std::size_t>(blockIdx.x) * kTilePlanes * S.plane;
  int dst[kTileMaxDuties];  // ring offset of an inline duty, else -1
  bool plain[kTileMaxDuties];
  unsigned boundary = 0;  // duties of the __noinline__ function
#pragma unroll
  for (int n = 0; n < kTileMaxDuties; ++n) {
    const int at = n < S.per_thread ? tile_duty(S, tid, n, x_halo) : -1;
    const int row = at / kTileLW, col = at % kTileLW;
    const bool halo_pack = at >= 0 && (col < kTileH || col >= kTileH + kTileTW);
    plain[n] = plain_rows && at >= 0 && row < kTileR;
    dst[n] = at;
    if (noinline && halo_pack) {
      boundary |= 1u << n;
      where[n * S.threads] = at;
      dst[n] = -1;
    }
  }
  const std::uint64_t policy = hint ? l2_evict_first_policy() : 0;
  auto fetch = [&](int z, int si) {  // plane z into slot si (z % kTileRing)
    if (z >= kTilePlanes) return;  // past the last plane: no copy, no arrival
    float* slot = ring + si * S.plane;
    const float* src = planes + static_cast<std::size_t>(z) * S.plane;
#pragma unroll
    for (int n = 0; n < kTileMaxDuties; ++n) {
      if (dst[n] < 0) continue;
      if (plain[n]) {
        *reinterpret_cast<float4*>(slot + dst[n]) = *reinterpret_cast<const float4*>(src + dst[n]);
      } else if (hint) {
        asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(shared_address(slot + dst[n])),
                     "l"(src + dst[n]), "l"(policy)
                     : "memory");
      } else {
        __pipeline_memcpy_async(slot + dst[n], src + dst[n], 16);
      }
    }
    if (boundary) tile_fill_boundary(slot, src, boundary, where, S.threads);
    mbarrier_arrive_copies(&full[si]);
    __syncwarp();
    if (tx == 0) mbarrier_arrive(&full[si]);
  };
  auto pack_sum = [](const float* p) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    return v.x + v.y + v.z + v.w;
  };
  const int own = (kTileR + ty) * kTileLW + kTileH + tx * kTileW;
  const bool inside = tx * kTileW < nx;  // stream25d's `inside`: a thread past the grid's last column reads nothing
  for (int z = 0; z < kTileRing - 1; ++z) fetch(z, z);
  float acc = 0;
  for (int z = 0; z < kTileR; ++z) {  // the queue's first planes
    mbarrier_wait(&full[z], 0);
    if (inside && queue) acc += pack_sum(ring + z * S.plane + own);
  }
  // Step d. slot(k) and parity(k): the slot of plane d + k and its phase's parity, as
  // functions of k so that the unrolled steps (kConstSlots) can make them constants.
  auto step = [&](int d, auto slot, auto parity) {
    mbarrier_wait(&full[slot(kTileR)], parity(kTileR));  // the queue takes plane d + R in
    if (inside && queue) acc += pack_sum(ring + slot(kTileR) * S.plane + own);
    if (d >= 1) mbarrier_wait(&empty[slot(-1)], parity(-1));  // every warp has read plane d - 1
    fetch(d + kTileRing - 1, slot(-1));                           // into plane d - 1's slot
    if (inside) {
      const float* p = ring + slot(0) * S.plane + own;
#pragma unroll
      for (int m = 0; m <= 2 * kTileR; ++m)  // the y neighbours
        if (m != kTileR || !queue) acc += pack_sum(p + (m - kTileR) * kTileLW) * static_cast<float>(m + 1);
      if (x_halo) acc += 2.0f * (pack_sum(p - kTileW) + pack_sum(p + kTileW));  // the x window
    }
    if (every_thread_empty) {
      mbarrier_arrive(&empty[slot(0)]);
    } else {
      __syncwarp();
      if (tx == 0) mbarrier_arrive(&empty[slot(0)]);
    }
  };
  if constexpr (kConstSlots) {
    // stream25d's unrolled steps: a group of kTileRing steps, slot (s + k) mod 9 a constant.
    for (int s0 = 0, gi = 0; s0 < kTileSteps; s0 += kTileRing, ++gi) {
#pragma unroll
      for (int s = 0; s < kTileRing; ++s) {
        if (s0 + s >= kTileSteps) break;
        step(
            s0 + s, [&](int k) { return ((s + k) % kTileRing + kTileRing) % kTileRing; },
            [&](int k) { return static_cast<unsigned>(gi + (s + k >= 0 ? (s + k) / kTileRing : -1)) & 1u; });
      }
    }
  } else {
    for (int d = 0; d < kTileSteps; ++d)
      step(
          d, [&](int k) { return ((d + k) % kTileRing + kTileRing) % kTileRing; },  // d = 0, k = -1: slot 8, not -1
          [&](int k) { return d + k >= 0 ? static_cast<unsigned>((d + k) / kTileRing) & 1u : 1u; });
  }
  mbarrier_wait(&empty[(kTileSteps - 1) % kTileRing], ((kTileSteps - 1) / kTileRing) & 1u);  // the last plane's, waited by no fetch
  asm volatile("cp.async.wait_all;" ::: "memory");
  out[blockIdx.x * S.threads + tid] = acc;
}
// Whether the deal covers each pack the kernel reads exactly once (and no other).
bool tile_deal_ok(const TileShape& S, bool x_halo) {
  std::vector<int> writers(S.plane / kTileW, 0), read(S.plane / kTileW, 0);
  for (int tid = 0; tid < S.threads; ++tid)
    for (int n = 0; n < S.per_thread; ++n) {
      const int at = tile_duty(S, tid, n, x_halo);
      if (at >= 0) ++writers[at / kTileW];
    }
  for (int ty = 0; ty < S.by; ++ty)
    for (int tx = 0; tx < 32; ++tx) {
      const int own = (kTileR + ty) * kTileLW + kTileH + tx * kTileW;
      for (int m = 0; m <= 2 * kTileR; ++m) read[(own + (m - kTileR) * kTileLW) / kTileW] = 1;
      if (x_halo) read[(own - kTileW) / kTileW] = read[(own + kTileW) / kTileW] = 1;
    }
  for (std::size_t k = 0; k < read.size(); ++k)
    if (writers[k] != read[k]) return false;
  return true;
}
// The host's sums for ring_kernel_tile.
void tile_sums(const std::vector<float>& host, int blocks, int threads, int mode, int nx, std::vector<float>& want) {
  const TileShape S(threads);
  for (int b = 0; b < blocks; ++b)
    for (int tid = 0; tid < threads; ++tid) {
      const int tx = tid % 32, ty = tid / 32;
      const float* planes = host.data() + static_cast<std::size_t>(b) * kTilePlanes * S.plane;
      auto pack_sum = [](const float* p) { return p[0] + p[1] + p[2] + p[3]; };
      const int own = (kTileR + ty) * kTileLW + kTileH + tx * kTileW;
      float acc = 0;
      if (tx * kTileW >= nx) {
        want[static_cast<std::size_t>(b) * threads + tid] = 0;
        continue;
      }
      const bool queue = mode != 19;
      if (queue)
        for (int z = 0; z < kTileR; ++z) acc += pack_sum(planes + z * S.plane + own);
      for (int d = 0; d < kTileSteps; ++d) {
        if (queue) acc += pack_sum(planes + (d + kTileR) * S.plane + own);
        const float* p = planes + static_cast<std::size_t>(d) * S.plane + own;
        for (int m = 0; m <= 2 * kTileR; ++m)
          if (m != kTileR || !queue) acc += pack_sum(p + (m - kTileR) * kTileLW) * static_cast<float>(m + 1);
        if (tile_x_halo(mode)) acc += 2.0f * (pack_sum(p - kTileW) + pack_sum(p + kTileW));
      }
      want[static_cast<std::size_t>(b) * threads + tid] = acc;
    }
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 200;
  const bool tile = mode >= 10;
  const int kThreads = argc > 3 ? std::atoi(argv[3]) : tile ? 512 : 128;
  const int spread = argc > 4 ? std::atoi(argv[4]) : 1;
  const int early = argc > 5 ? std::atoi(argv[5]) : 0;
  const int kBlocks = argc > 6 ? std::atoi(argv[6]) : tile ? 132 : 264;
  const int nx = argc > 7 ? std::atoi(argv[7]) : kTileTW;  // modes 10-19: columns read (128: a whole tile)
  if (tile && (kThreads != 256 && kThreads != 512)) {
    std::printf("modes 10-19 take 256 or 512 threads\n");
    return 2;
  }
  const TileShape shape(tile ? kThreads : 512);
  if (tile && !tile_deal_ok(shape, tile_x_halo(mode))) {
    std::printf("mode %d: the deal does not cover the packs read exactly once\n", mode);
    return 2;
  }
  const std::size_t n = static_cast<std::size_t>(kBlocks) * (tile ? static_cast<std::size_t>(kTilePlanes) * shape.plane : kPlanes * kThreads);
  std::vector<float> host(n), want(static_cast<std::size_t>(kBlocks) * kThreads), got(want.size());
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, want.size() * sizeof(float));
  if (tile) {
    cudaFuncSetAttribute(ring_kernel_tile<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.smem_bytes()));
    cudaFuncSetAttribute(ring_kernel_tile<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.smem_bytes()));
  }
  std::uint32_t seed = 12345;
  auto next = [&] {  // integers 0..99: every sum exact in float, in any order
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>((seed >> 8) % 100);
  };
  int wrong = 0;
  for (int r = 0; r < runs; ++r) {
    for (std::size_t k = 0; k < n; ++k) host[k] = next();
    if (tile) {
      tile_sums(host, kBlocks, kThreads, mode, nx, want);
    } else {
      for (int b = 0; b < kBlocks; ++b)
        for (int t = 0; t < kThreads; ++t) {
          float acc = 0;
          for (int p = 0; p < kPlanes; ++p) {
            for (int k = 1; k <= spread; ++k)
              acc += host[(static_cast<std::size_t>(b) * kPlanes + p) * kThreads + (t + 32 * k) % kThreads] * static_cast<float>(p + k);
            if (early && p + early < kPlanes && mode != 2 && mode != 5)
              acc += host[(static_cast<std::size_t>(b) * kPlanes + p + early) * kThreads + t] * 0.5f;
          }
          want[static_cast<std::size_t>(b) * kThreads + t] = acc;
        }
    }
    cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(out, 0xff, want.size() * sizeof(float));  // NaN: a value never written shows
    if (tile && mode >= 16 && mode <= 18) ring_kernel_tile<true><<<kBlocks, dim3(32, kThreads / 32), shape.smem_bytes()>>>(in, out, mode, nx);
    else if (tile) ring_kernel_tile<false><<<kBlocks, dim3(32, kThreads / 32), shape.smem_bytes()>>>(in, out, mode, nx);
    else if (mode == 6) ring_kernel_libcu<<<kBlocks, kThreads>>>(in, out, spread, early);
    else if (mode == 8) ring_kernel16<<<kBlocks, kThreads>>>(in, out, spread, early);
    else ring_kernel<<<kBlocks, kThreads, mode == 9 ? kRing * kMaxThreads * sizeof(float) : 0>>>(in, out, mode, spread, early);
    cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != want[k];
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (tile)
    std::printf("mode %d (%d threads, %d of 128 columns read): %d runs of %d blocks, %d wrong sums, %s\n", mode, kThreads, nx,
                runs, kBlocks, wrong, cudaGetErrorString(e));
  else
    std::printf("mode %d (%d threads, spread %d, early %d): %d runs of %d blocks, %d wrong sums, %s\n", mode, kThreads,
                spread, early, runs, kBlocks, wrong, cudaGetErrorString(e));
  return wrong == 0 && e == cudaSuccess ? 0 : 1;
}
