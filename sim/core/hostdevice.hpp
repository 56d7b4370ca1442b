#pragma once
// SS_HD marks functions shared by host code and CUDA kernels; explicit fused
// multiply-adds keep the rounding identical on both sides, which is what lets
// the CPU `cpu` variant and every GPU variant agree bitwise.
#include <cmath>

/// Fully unrolls the next loop on host and device compilers alike.
#if defined(__CUDACC__)
#define SS_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define SS_UNROLL _Pragma("clang loop unroll(full)")
#else
#define SS_UNROLL _Pragma("GCC unroll 16")
#endif

#if defined(__CUDACC__)
#define SS_HD __host__ __device__
#define SS_FORCEINLINE __forceinline__
#else
#define SS_HD
#define SS_FORCEINLINE inline __attribute__((always_inline))
#endif

namespace ss {

/// a*b + c with a single rounding, on host and device alike.
SS_HD SS_FORCEINLINE float fma_t(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
SS_HD SS_FORCEINLINE double fma_t(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace ss
