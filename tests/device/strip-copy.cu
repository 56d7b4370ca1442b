// On the GPU machine: how fast can a block walking a strip of rows move data, by
// the way its rows arrive? The question behind heat2d stream's design
// (docs/perf.md, session 5). Standalone, not part of the build:
//   nvcc -O3 -arch=sm_90 tests/device/strip-copy.cu -o /tmp/strip-copy && /tmp/strip-copy
// Every kernel copies an 8192^2 float field with padded rows, as heat2d lays it
// out; GB/s counts one read and one write per value, as the benchmarks do. Each
// 128-thread block owns 512 columns, each warp 128 of them, and walks `strips`
// strips' worth of rows:
//   async   rows land in a per-warp shared ring through cp.async, `ahead` rows ahead,
//           and are stored from there (heat2d stream before session 5);
//           + halo: the edge lanes also fetch the 16 bytes beside the segment;
//           + work: about 80 arithmetic instructions per row and thread
//   bulk    the same ring filled by the bulk copy engine (one 544-byte copy per row,
//           completing on an mbarrier per slot)
//   loads   rows loaded straight into a register queue 8 rows ahead
#include <cuda_pipeline.h>

#include <cstdio>
#include <vector>

namespace {

struct alignas(16) P4 {
  float v[4];
};
constexpr int kNX = 8192, kNY = 8192, kPitch = kNX + 32, kX0 = 16;
constexpr int kWalk = kNX / 512;  // blocks across a row

__global__ void copy_flat(const P4* __restrict__ in, P4* __restrict__ out, long n) {
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__device__ __forceinline__ void rows_of(int strips, int& j0, int& rows) {
  j0 = static_cast<int>(static_cast<long>(blockIdx.y) * kNY / strips);
  rows = static_cast<int>(static_cast<long>(blockIdx.y + 1) * kNY / strips) - j0;
}

// Arithmetic standing in for the stencil: 4 x 9 dependent FMA + FADD pairs.
__device__ __forceinline__ void work(P4& v, const P4& l, const P4& r, float cc) {
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    float s = v.v[w] * 1.1f;
#pragma unroll
    for (int k = 0; k < 9; ++k) s = fmaf(cc, s + l.v[(w + k) % 4] + r.v[(w * k) % 4], s);
    v.v[w] = s;
  }
}

template <int kRing, int kAhead>
__global__ void __launch_bounds__(128, 6)
    strip_async(const float* __restrict__ in, float* __restrict__ out, int strips, bool halo_too, bool work_too, float cc) {
  __shared__ alignas(16) float ring_all[4][kRing][136];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto& ring = ring_all[warp];
  const int c = blockIdx.x * 512 + warp * 128 + lane * 4;
  int j0, rows;
  rows_of(strips, j0, rows);
  const bool halo = halo_too && (lane == 0 || lane == 31);
  const float* src = in + static_cast<long>(j0 + 4) * kPitch + kX0 + c;
  float* dst = out + static_cast<long>(j0 + 4) * kPitch + kX0 + c;
  auto fetch = [&](int t) {
    if (t < rows) {
      __pipeline_memcpy_async(&ring[t % kRing][4 + lane * 4], src + static_cast<long>(t) * kPitch, 16);
      if (halo)
        __pipeline_memcpy_async(&ring[t % kRing][lane == 0 ? 0 : 132], src + static_cast<long>(t) * kPitch + (lane == 0 ? -4 : 4), 16);
    }
    __pipeline_commit();
  };
  for (int d = 0; d < kAhead; ++d) fetch(d);
  for (int t = 0; t < rows; ++t) {
    __pipeline_wait_prior(kAhead - 1);
    __syncwarp();
    P4 v = *reinterpret_cast<const P4*>(&ring[t % kRing][4 + lane * 4]);
    fetch(t + kAhead);  // into the slot of row t - 1 (or older): every lane is past it
    if (work_too)
      work(v, *reinterpret_cast<const P4*>(&ring[t % kRing][lane * 4]), *reinterpret_cast<const P4*>(&ring[t % kRing][8 + lane * 4]), cc);
    *reinterpret_cast<P4*>(dst + static_cast<long>(t) * kPitch) = v;
  }
}

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int kRing, int kAhead>
__global__ void __launch_bounds__(128, 6)
    strip_bulk(const float* __restrict__ in, float* __restrict__ out, int strips, bool work_too, float cc) {
  static_assert(kAhead < kRing);
  __shared__ alignas(128) float ring_all[4][kRing][136];
  __shared__ alignas(8) unsigned long long full_all[4][kRing];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto& ring = ring_all[warp];
  auto& full = full_all[warp];
  const int s0 = blockIdx.x * 512 + warp * 128;
  int j0, rows;
  rows_of(strips, j0, rows);
  const float* segment = in + static_cast<long>(j0 + 4) * kPitch + kX0 + s0 - 4;  // with one halo pack each side
  float* dst = out + static_cast<long>(j0 + 4) * kPitch + kX0 + s0 + lane * 4;
  if (lane == 0)
    for (int k = 0; k < kRing; ++k) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(&full[k])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncwarp();
  auto fetch = [&](int t) {
    if (lane != 0 || t >= rows) return;
    const unsigned bar = smem_address(&full[t % kRing]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 544;" ::"r"(bar) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 544, [%2];" ::"r"(
                     smem_address(&ring[t % kRing][0])),
                 "l"(segment + static_cast<long>(t) * kPitch), "r"(bar)
                 : "memory");
  };
  for (int d = 0; d < kAhead; ++d) fetch(d);
  for (int t = 0; t < rows; ++t) {
    asm volatile(
        "{\n .reg .pred p;\n wait: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra wait;\n}" ::"r"(
            smem_address(&full[t % kRing])),
        "r"((t / kRing) & 1)
        : "memory");
    P4 v = *reinterpret_cast<const P4*>(&ring[t % kRing][4 + lane * 4]);
    if (work_too)
      work(v, *reinterpret_cast<const P4*>(&ring[t % kRing][lane * 4]), *reinterpret_cast<const P4*>(&ring[t % kRing][8 + lane * 4]), cc);
    __syncwarp();  // every lane is done with the slot the next copy overwrites
    fetch(t + kAhead);
    *reinterpret_cast<P4*>(dst + static_cast<long>(t) * kPitch) = v;
  }
}

__global__ void __launch_bounds__(128) strip_loads(const float* __restrict__ in, float* __restrict__ out, int strips) {
  constexpr int kAhead = 8;
  const int c = blockIdx.x * 512 + threadIdx.x * 4;
  int j0, rows;
  rows_of(strips, j0, rows);
  const P4* src = reinterpret_cast<const P4*>(in + static_cast<long>(j0 + 4) * kPitch + kX0 + c);
  P4* dst = reinterpret_cast<P4*>(out + static_cast<long>(j0 + 4) * kPitch + kX0 + c);
  constexpr long kStep = kPitch / 4;
  P4 q[kAhead];
#pragma unroll
  for (int d = 0; d < kAhead; ++d)
    if (d < rows) q[d] = src[d * kStep];
  for (int tb = 0; tb < rows; tb += kAhead) {
#pragma unroll
    for (int s = 0; s < kAhead; ++s) {
      const int t = tb + s;
      if (t >= rows) break;
      dst[t * kStep] = q[s];
      if (t + kAhead < rows) q[s] = src[(t + kAhead) * kStep];
    }
  }
}

}  // namespace

int main() {
  const long elems = static_cast<long>(kPitch) * (kNY + 8);
  std::vector<float> host(elems), back(elems);
  for (long i = 0; i < elems; ++i) host[i] = static_cast<float>(i % 1000003);
  float *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, elems * 4) != cudaSuccess || cudaMalloc(&b, elems * 4) != cudaSuccess) {
    std::printf("no room for two %ld MB fields\n", elems * 4 >> 20);
    return 1;
  }
  cudaMemcpy(a, host.data(), elems * 4, cudaMemcpyHostToDevice);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const double bytes = 2.0 * kNX * static_cast<double>(kNY) * sizeof(float);
  auto gbps = [&](auto launch) {
    launch();
    cudaDeviceSynchronize();
    cudaEventRecord(e0);
    for (int i = 0; i < 20; ++i) launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return bytes / (ms / 20 * 1e-3) / 1e9;
  };
  // Every interior value must arrive: the walks are copies.
  auto check = [&](const char* name) {
    cudaMemcpy(back.data(), b, elems * 4, cudaMemcpyDeviceToHost);
    long wrong = 0;
    for (long j = 4; j < kNY + 4; ++j)
      for (long i = kX0; i < kX0 + kNX; ++i) wrong += back[j * kPitch + i] != host[j * kPitch + i];
    if (wrong) std::printf("%s: %ld values wrong\n", name, wrong);
    return wrong == 0;
  };
  const double copy = gbps([&] { copy_flat<<<sms * 16, 256>>>(reinterpret_cast<const P4*>(a), reinterpret_cast<P4*>(b), elems / 4); });
  std::printf("flat copy (float4 grid stride): %.0f GB/s\n", copy);
  bool ok = true;
  auto row = [&](const char* name, int strips, auto launch, bool copies = true) {
    cudaMemset(b, 0, elems * 4);
    launch();
    cudaDeviceSynchronize();
    if (copies) ok = check(name) && ok;
    const double v = gbps(launch);
    std::printf("%-28s strips %4d (%3d rows): %5.0f GB/s  %.3f of the flat copy\n", name, strips, kNY / strips, v, v / copy);
  };
  const dim3 block(128);
  for (int strips : {49, 98, 196}) {
    row("async, ring 16, 8 ahead", strips, [&] { strip_async<16, 8><<<dim3(kWalk, strips), block>>>(a, b, strips, false, false, 0.f); });
    row("async + halo", strips, [&] { strip_async<16, 8><<<dim3(kWalk, strips), block>>>(a, b, strips, true, false, 0.f); });
    row("async + halo + work", strips, [&] { strip_async<16, 8><<<dim3(kWalk, strips), block>>>(a, b, strips, true, true, 0.1f); }, false);
    row("bulk, ring 16, 15 ahead", strips, [&] { strip_bulk<16, 15><<<dim3(kWalk, strips), block>>>(a, b, strips, false, 0.f); });
    row("loads, 8 ahead", strips, [&] { strip_loads<<<dim3(kWalk, strips), block>>>(a, b, strips); });
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("CUDA error: %s\n", cudaGetErrorString(e));
  return ok && e == cudaSuccess ? 0 : 1;
}
