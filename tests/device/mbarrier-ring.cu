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
// Each mode runs 200 times over 264 blocks with planes of random values, and every
// thread's weighted sum is compared with the host's. Run it plain and under each tool:
//   nvcc -std=c++17 -arch=sm_90 -lineinfo -o ring tests/device/mbarrier-ring.cu
//   ./ring MODE [RUNS [THREADS [SPREAD [EARLY]]]], e.g. ./ring 0 200 512 8 1, and the same
//   under compute-sanitizer --tool racecheck (and synccheck)
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
constexpr int kMaxThreads = 512, kPlanes = 40, kRing = RING_SLOTS, kAhead = RING_AHEAD, kBlocks = 264;
// Set from the command line: threads per block (4 or 16 warps, as stream25d), how many
// other warps' elements each thread reads per plane (stream25d's y neighbours: up to 8),
// and whether each thread also reads plane p + 1's slot at step p (stream25d's queue
// takes plane d + R at step d, R steps before it arrives on that slot's `empty`).

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
    if (early && p + 1 < kPlanes && mode != 2 && mode != 5) {  // the next plane, R steps early in stream25d
      mbarrier_wait(&full[(p + 1) % kRing], ((p + 1) / kRing) & 1u);
      acc += ring[(p + 1) % kRing][t] * 0.5f;
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

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 200;
  const int kThreads = argc > 3 ? std::atoi(argv[3]) : 128;
  const int spread = argc > 4 ? std::atoi(argv[4]) : 1;
  const int early = argc > 5 ? std::atoi(argv[5]) : 0;
  const std::size_t n = static_cast<std::size_t>(kBlocks) * kPlanes * kThreads;
  std::vector<float> host(n), want(static_cast<std::size_t>(kBlocks) * kThreads), got(want.size());
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, want.size() * sizeof(float));
  int wrong = 0;
  for (int r = 0; r < runs; ++r) {
    for (std::size_t k = 0; k < n; ++k) host[k] = static_cast<float>(std::rand() % 100);
    for (int b = 0; b < kBlocks; ++b)
      for (int t = 0; t < kThreads; ++t) {
        float acc = 0;
        for (int p = 0; p < kPlanes; ++p) {
          for (int k = 1; k <= spread; ++k)
            acc += host[(static_cast<std::size_t>(b) * kPlanes + p) * kThreads + (t + 32 * k) % kThreads] * static_cast<float>(p + k);
          if (early && p + 1 < kPlanes && mode != 2 && mode != 5)
            acc += host[(static_cast<std::size_t>(b) * kPlanes + p + 1) * kThreads + t] * 0.5f;
        }
        want[static_cast<std::size_t>(b) * kThreads + t] = acc;
      }
    cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(out, 0xff, want.size() * sizeof(float));  // NaN: a value never written shows
    if (mode == 6) ring_kernel_libcu<<<kBlocks, kThreads>>>(in, out, spread, early);
    else if (mode == 8) ring_kernel16<<<kBlocks, kThreads>>>(in, out, spread, early);
    else ring_kernel<<<kBlocks, kThreads, mode == 9 ? kRing * kMaxThreads * sizeof(float) : 0>>>(in, out, mode, spread, early);
    cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != want[k];
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("mode %d (%d threads, spread %d, early %d): %d runs of %d blocks, %d wrong sums, %s\n", mode, kThreads,
              spread, early, runs, kBlocks, wrong, cudaGetErrorString(e));
  return wrong == 0 && e == cudaSuccess ? 0 : 1;
}
