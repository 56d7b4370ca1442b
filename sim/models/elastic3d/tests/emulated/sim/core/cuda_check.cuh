#pragma once
// Stands in for sim/core/cuda_check.cuh in test_elastic3d_stream25d_emulated only (its
// include path puts this folder first): compiles a kernel header as host C++, one
// std::thread per CUDA thread, threadIdx and blockIdx thread-local, __syncthreads a
// std::barrier of the block. No CUDA runtime: launching is the test's job.
#include <algorithm>
#include <barrier>
#include <cstddef>
#include <string>

#include "sim/core/error.hpp"

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
/// CUDA's float2 (8-byte aligned), for register25d's paired loads.
struct alignas(8) float2 {
  float x, y;
};
struct EmulatedIndex {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmulatedIndex threadIdx, blockIdx;
inline dim3 gridDim, blockDim;
/// The barrier of the block being emulated (one block at a time).
inline std::barrier<>* emulated_block_barrier = nullptr;
inline void __syncthreads() { emulated_block_barrier->arrive_and_wait(); }
#define __global__
#define __device__
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

namespace ss {
using std::max;
using std::min;
inline unsigned blocks_for(long long n, long long b) { return static_cast<unsigned>((n + b - 1) / b); }
}  // namespace ss
