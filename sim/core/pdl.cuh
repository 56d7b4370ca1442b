#pragma once
// Programmatic dependent launch (compute capability 9.0 and later): a step launched with
// launch_pdl may be scheduled while the step before it in its stream is still finishing.
// Its blocks do their set-up (registers, shared memory, read-only tables), then pdl_wait
// until the previous grid has completed and its writes are visible, before they touch a
// field. A step calls pdl_trigger once its own main loop is done, so that the next one is
// launched during its tail instead of after it: the launch gap between two steps (3-4 us
// of a 48 us heat3d step at 256^3 on an H200, tests/device/block-times.sh) is hidden.
// Where the kernel was launched without the attribute (a box of a distributed run, an
// older device, STENCILSCOPE_PDL=0) both are no-ops.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "sim/core/cuda_check.cuh"

namespace ss {

/// Waits for the grids this one depends on (their completion and their writes).
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next dependent launch start scheduling (it still waits in pdl_wait for this grid).
__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Whether launch_pdl sets the attribute: the current device is of compute capability 9.0
/// or later and STENCILSCOPE_PDL is not "0" (read once per process).
inline bool pdl_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("STENCILSCOPE_PDL");
    const std::string v = e ? e : "";
    if (v == "0") return false;
    if (!v.empty() && v != "1") std::fprintf(stderr, "stencilscope: STENCILSCOPE_PDL=%s ignored (1 or 0)\n", v.c_str());
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
      return false;
    return major >= 9;
  }();
  return on;
}

/// kernel<<<grid, block, smem, s>>>(args...) with programmatic stream serialization where
/// pdl_enabled(); throws on a launch error, naming the kernel.
template <typename... KernelArgs, typename... Args>
void launch_pdl(const char* name, void (*kernel)(KernelArgs...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s,
                Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = s;
  config.attrs = &attr;
  config.numAttrs = pdl_enabled() ? 1 : 0;
  const cudaError_t e = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (e != cudaSuccess) throw_cuda_error(e, name, __FILE__, __LINE__);
}

}  // namespace ss
