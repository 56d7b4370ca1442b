#pragma once
// The slice gather on the GPU, shared by the 3D models: a strided slice of a padded
// volume (slice3d.hpp) into a dense nu*nv buffer, u fastest, so that a host copy
// moves only the slice.
#include "sim/core/cuda_check.cuh"
#include "sim/core/slice3d.hpp"

namespace ss {

template <typename T>
__global__ void gather_slice_kernel(const T* __restrict__ f, SliceView s, T* __restrict__ out) {
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = blockIdx.y * blockDim.y + threadIdx.y;
  if (u < s.nu && v < s.nv) out[static_cast<std::size_t>(v) * s.nu + u] = f[s.at(u, v)];
}

/// Gathers slice `s` of the padded field f into `scratch` (grown to nu*nv on demand),
/// copies it to dst and waits for the stream.
template <typename T>
inline void copy_slice_to_host_via(const T* f, const SliceView& s, DeviceBuffer<T>& scratch, T* dst, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(s.nu) * s.nv;
  if (scratch.size() < n) scratch = DeviceBuffer<T>(n);
  const dim3 block(32, 8);
  const dim3 grid(blocks_for(s.nu, 32), blocks_for(s.nv, 8));
  gather_slice_kernel<T><<<grid, block, 0, stream>>>(f, s, scratch.get());
  SS_CUDA_LAUNCH_CHECK("gather_slice_kernel");
  SS_CUDA_CHECK(cudaMemcpyAsync(dst, scratch.get(), n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  SS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace ss
