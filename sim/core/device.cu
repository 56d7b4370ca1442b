// CUDA device queries and the copy kernel every bandwidth is compared with.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/cuda_check.cuh"
#include "sim/core/device.hpp"
#include "sim/core/device_read.hpp"

namespace ss {

std::vector<DeviceInfo> cuda_devices(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    // No driver or no GPU is the ordinary case of a machine without CUDA: say just that.
    const bool ordinary = e == cudaSuccess || e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver;
    if (why) *why = ordinary ? "no CUDA device" : std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
    cudaGetLastError();  // clear the sticky-free error state
    return {};
  }
  std::vector<DeviceInfo> out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    SS_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    DeviceInfo info;
    info.index = d;
    info.name = p.name;
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.multiprocessors = p.multiProcessorCount;
    info.total_bytes = p.totalGlobalMem;
    info.l2_bytes = p.l2CacheSize;
    int clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d) == cudaSuccess)
      info.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    int current = 0;
    SS_CUDA_CHECK(cudaGetDevice(&current));
    if (current == d && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) info.free_bytes = free_b;
    out.push_back(info);
  }
  return out;
}

bool cuda_available(std::string* why) { return !cuda_devices(why).empty(); }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

bool cuda_peers_reach(int count) {
  for (int a = 0; a < count; ++a)
    for (int b = 0; b < count; ++b) {
      int can = 0;
      if (a != b && (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can)) {
        cudaGetLastError();
        return false;
      }
    }
  return true;
}

void use_cuda_device(int index) { SS_CUDA_CHECK(cudaSetDevice(index)); }

double cuda_peak_gbps_per_sm() {
  int dev = 0, clock_khz = 0, bus_bits = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) {
    cudaGetLastError();
    return 0;
  }
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9 / sms;
}

std::string cuda_device_name() {
  const auto d = cuda_devices();
  return d.empty() ? std::string() : d.front().name;
}

void check_device_memory(std::size_t bytes, const char* what) {
  std::size_t free_b = 0, total_b = 0;
  SS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (bytes > free_b)
    throw Error(std::string(what) + " needs " + std::to_string(bytes / 1000000) + " MB of device memory; " +
                std::to_string(free_b / 1000000) + " MB of " + std::to_string(total_b / 1000000) + " MB are free");
}

namespace {

__global__ void copy_kernel_float4(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[k] = in[k];
}

}  // namespace

double measure_copy_gbps(std::size_t bytes, int repeats) {
  const std::size_t n = std::max<std::size_t>(bytes / sizeof(float4), 1);
  check_device_memory(2 * n * sizeof(float4), "the copy kernel");
  DeviceBuffer<float4> a(n), b(n);
  SS_CUDA_CHECK(cudaMemset(a.get(), 0x3f, a.bytes()));  // not zeros: real data
  int sms = 0, dev = 0;
  SS_CUDA_CHECK(cudaGetDevice(&dev));
  SS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned threads = 256;
  const unsigned blocks = std::min<unsigned>(blocks_for(static_cast<long long>(n), threads), sms * 16u);
  CudaEvent t0, t1;
  std::vector<double> ms;
  for (int r = -2; r < repeats; ++r) {  // two warm-up runs
    SS_CUDA_CHECK(cudaEventRecord(t0.get()));
    copy_kernel_float4<<<blocks, threads>>>(a.get(), b.get(), n);
    SS_CUDA_LAUNCH_CHECK("copy_kernel_float4");
    SS_CUDA_CHECK(cudaEventRecord(t1.get()));
    const double t = elapsed_ms(t0, t1);
    if (r >= 0) ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return 2.0 * n * sizeof(float4) / (ms[ms.size() / 2] * 1e6);
}

}  // namespace ss

namespace ss {

void copy_device_to_host(void* dst, const void* src, std::size_t bytes, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  SS_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
  SS_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ss
