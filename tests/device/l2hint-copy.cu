// cp.async with an L2 cache hint, alone: does it run, and what does ptxas make of it?
// docs/perf.md (sessions 9-11) records an "illegal instruction" from stream25d's ring
// when its copies carried an L2::cache_hint, and SASS with `LDGSTS ... desc[UR1]` whose
// uniform registers were never written. Each kernel here copies PACKS 16-byte packs per
// thread from global to shared memory with
//   cp.async.cg.shared.global.L2::cache_hint [dst], [src], 16, policy;
// waits for them, and writes back the pack of another thread, which the host checks:
//   kernel 0  one policy for the block: createpolicy.fractional.L2::evict_first, 1.0
//   kernel 1  a policy per thread: evict_first for even threads, evict_last for odd ones
//             (not uniform across the warp: ptxas must build the descriptor per thread)
//   kernel 2  kernel 0 under an mbarrier (cp.async.mbarrier.arrive + try_wait), the
//             completion stream25d's ring uses
// tests/device/race-check.sh builds it, runs it and checks the SASS (cuobjdump -sass):
//   nvcc -std=c++17 -arch=sm_90 -lineinfo -o l2hint tests/device/l2hint-copy.cu && ./l2hint
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kThreads = 256, kPacks = 4, kBlocks = 264;

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ void copy16_hinted(void* smem, const void* global, std::uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(shared_address(smem)), "l"(global),
               "l"(policy)
               : "memory");
}

template <int kKernel>
__global__ void copy_hinted(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ float4 tile[kPacks * kThreads];
  __shared__ std::uint64_t landed;
  const int t = threadIdx.x;
  std::uint64_t policy;
  if (kKernel == 1 && t % 2 == 1) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  else asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  if (kKernel == 2) {
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(&landed)), "r"(kThreads) : "memory");
    __syncthreads();
  }
  const float4* block_in = in + static_cast<std::size_t>(blockIdx.x) * kPacks * kThreads;
#pragma unroll
  for (int k = 0; k < kPacks; ++k) copy16_hinted(&tile[k * kThreads + t], block_in + k * kThreads + t, policy);
  if (kKernel == 2) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(shared_address(&landed)) : "memory");
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "waiting:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "@!done bra waiting;\n"
        "}\n" ::"r"(shared_address(&landed))
        : "memory");
  } else {
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < kPacks; ++k)
    out[(static_cast<std::size_t>(blockIdx.x) * kPacks + k) * kThreads + t] = tile[k * kThreads + (t + 32) % kThreads];
}

int main() {
  const std::size_t n = static_cast<std::size_t>(kBlocks) * kPacks * kThreads;
  std::vector<float4> host(n), got(n);
  for (std::size_t k = 0; k < n; ++k) host[k] = make_float4(k, k + 0.25f, k + 0.5f, k + 0.75f);
  float4 *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float4));
  cudaMalloc(&out, n * sizeof(float4));
  cudaMemcpy(in, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
  int status = 0;
  for (int kernel = 0; kernel < 3; ++kernel) {
    cudaMemset(out, 0xff, n * sizeof(float4));
    if (kernel == 0) copy_hinted<0><<<kBlocks, kThreads>>>(in, out);
    if (kernel == 1) copy_hinted<1><<<kBlocks, kThreads>>>(in, out);
    if (kernel == 2) copy_hinted<2><<<kBlocks, kThreads>>>(in, out);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got.data(), out, n * sizeof(float4), cudaMemcpyDeviceToHost);
    long wrong = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t t = k % kThreads, base = k - t, from = base + (t + 32) % kThreads;
      wrong += got[k].x != host[from].x || got[k].w != host[from].w;
    }
    std::printf("l2hint kernel %d (%s): %ld wrong packs of %zu, %s\n", kernel,
                kernel == 0 ? "one evict_first policy" : kernel == 1 ? "per-thread policies" : "under an mbarrier", wrong, n,
                cudaGetErrorString(e));
    if (e != cudaSuccess) return 1;  // a fault leaves the context unusable
    status |= wrong != 0;
  }
  return status;
}
