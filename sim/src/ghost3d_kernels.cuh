#pragma once
// The 3D boundary step on the GPU (one thread per ghost face cell, the same SS_HD
// function as the host step) and a NaN fill for poisoning buffers.
#include <algorithm>

#include "cuda_check.cuh"
#include "stencilscope/ghost3d.hpp"

namespace ss {

template <typename T>
__global__ void fill_ghosts3d_kernel(T* f, Grid3D g, const GhostRule3D<T>* rule_ptr) {
  const GhostRule3D<T>& rule = *rule_ptr;  // read in place: a copy would go to the stack
  const long long n = ghost_face_cells(g);
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    write_ghost_face_cell(f, g, e, rule);
}

/// Enqueues the boundary step for field f; `rule` points to device memory.
template <typename T>
inline void launch_fill_ghosts3d(T* f, const Grid3D& g, const GhostRule3D<T>* rule, cudaStream_t s) {
  const unsigned blocks = std::min<unsigned>(blocks_for(ghost_face_cells(g), 256), 8192);
  fill_ghosts3d_kernel<T><<<blocks, 256, 0, s>>>(f, g, rule);
  SS_CUDA_LAUNCH_CHECK("fill_ghosts3d_kernel");
}

template <typename T>
__global__ void fill_value3d_kernel(T* p, std::size_t n, T v) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[k] = v;
}

/// Enqueues p[0..n) = v.
template <typename T>
inline void launch_fill_value3d(T* p, std::size_t n, T v, cudaStream_t s) {
  fill_value3d_kernel<T><<<2048, 256, 0, s>>>(p, n, v);
  SS_CUDA_LAUNCH_CHECK("fill_value3d_kernel");
}

}  // namespace ss
