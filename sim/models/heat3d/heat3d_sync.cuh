#pragma once
// Device-side helpers of heat 3D's stream25d: L2 eviction hints (PTX createpolicy)
// and the shared-memory barriers (PTX mbarrier) of its ring of planes, each with its
// fallback before sm_80.
#include <cuda_pipeline.h>

#include <cstdint>

#include "sim/core/hostdevice.hpp"

namespace ss {

// L2 eviction priorities (PTX createpolicy): the face ghosts are written with
// evict_last. A hint only: at 512^3 the 16 MB of them still come mostly from DRAM
// (1 GB of field streams through the 50 MB L2 between write and read). They were
// read with evict_first too (1% faster) until the ring's copies went under
// mbarriers: in the ring of 9 planes the kernel with those hinted cp.async then
// stopped with an illegal instruction. ptxas (still in nvcc 13.0) emits hinted
// LDGSTS there that read uniform registers it never writes (docs/sanitizer.md);
// the same kernel without the hint passes every test. Keep the ring copies unhinted. A persisting L2 set-aside for them
// (cudaLimitPersistingL2CacheSize) halved the speed.
// Before sm_80 (no L2 policies) plain stores.
__device__ SS_FORCEINLINE std::uint64_t l2_evict_last_policy() {
  std::uint64_t p = 0;
#if __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
#endif
  return p;
}
__device__ SS_FORCEINLINE void store_l2_hint(float* p, float v, [[maybe_unused]] std::uint64_t policy) {
#if __CUDA_ARCH__ >= 800
  asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p), "r"(__float_as_uint(v)), "l"(policy) : "memory");
#else
  *p = v;
#endif
}
__device__ SS_FORCEINLINE void store_l2_hint(double* p, double v, [[maybe_unused]] std::uint64_t policy) {
#if __CUDA_ARCH__ >= 800
  asm volatile("st.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(p), "l"(__double_as_longlong(v)), "l"(policy) : "memory");
#else
  *p = v;
#endif
}

// Shared-memory barriers (PTX mbarrier, sm_80 on) for stream25d's ring: per
// slot, one that completes when a plane has landed, one when it has been read.
// Before sm_80 (no mbarrier; cp.async there is a plain copy) the kernel syncs
// the block instead (stream25d_sync). STENCILSCOPE_STREAM25_BLOCK_SYNC builds that
// block-synchronous ring on every GPU (its copies waited for before the barrier):
// slower, for checking the mbarrier ring against it (tests/device/sanitize.sh and
// docs/sanitizer.md).
#if defined(STENCILSCOPE_STREAM25_BLOCK_SYNC) || !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800
#define SS_STREAM25_MBARRIERS 0
#else
#define SS_STREAM25_MBARRIERS 1
#endif
__device__ SS_FORCEINLINE unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ SS_FORCEINLINE void mbarrier_init([[maybe_unused]] std::uint64_t* bar, [[maybe_unused]] unsigned count) {
#if SS_STREAM25_MBARRIERS
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
#endif
}
// Each barrier call below comes in two forms: on a generic pointer, and on a 32-bit shared
// address (`_at`). A kernel that computes its barriers' shared addresses once and adds a
// constant slot offset lets ptxas fold the offset into the instruction; from a generic
// pointer it rebuilt the shared window's address (S2R of the CTA id) at every call.
__device__ SS_FORCEINLINE void mbarrier_arrive_at([[maybe_unused]] unsigned bar) {  // release: this thread's writes so far
#if SS_STREAM25_MBARRIERS
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#endif
}
// Holds the phase open until this thread's cp.async issued so far have landed
// (the pending count goes up now and down then).
__device__ SS_FORCEINLINE void mbarrier_arrive_copies_at([[maybe_unused]] unsigned bar) {
#if SS_STREAM25_MBARRIERS
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
#endif
}
__device__ SS_FORCEINLINE void mbarrier_wait_at([[maybe_unused]] unsigned bar, [[maybe_unused]] unsigned parity) {  // acquire
#if !SS_STREAM25_MBARRIERS
#elif __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "waiting:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra waiting;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#elif __CUDA_ARCH__ >= 800
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "waiting:\n"
      "mbarrier.test_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra waiting;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
#endif
}
__device__ SS_FORCEINLINE void mbarrier_arrive(std::uint64_t* bar) { mbarrier_arrive_at(shared_address(bar)); }
__device__ SS_FORCEINLINE void mbarrier_arrive_copies(std::uint64_t* bar) { mbarrier_arrive_copies_at(shared_address(bar)); }
__device__ SS_FORCEINLINE void mbarrier_wait(std::uint64_t* bar, unsigned parity) { mbarrier_wait_at(shared_address(bar), parity); }

// A 16-byte cp.async (L1 bypassed, as __pipeline_memcpy_async of 16 bytes) into shared
// address `to` where `go` is non-zero: one predicated instruction, no branch around it.
// Before sm_80 a plain copy (to_generic: the same place as a generic pointer).
__device__ SS_FORCEINLINE void copy16_async_if(unsigned to, [[maybe_unused]] void* to_generic, const void* from, unsigned go) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.u32 p, %2, 0;\n"
      "@p cp.async.cg.shared.global [%0], [%1], 16;\n"
      "}\n" ::"r"(to),
      "l"(from), "r"(go)
      : "memory");
#else
  (void)to;
  if (go) *static_cast<int4*>(to_generic) = *static_cast<const int4*>(from);
#endif
}

// Where a step waits for its planes: without mbarriers, a block barrier (every
// warp then has fetched plane d + R and read plane d - 1).
__device__ SS_FORCEINLINE void stream25d_sync() {
#if !SS_STREAM25_MBARRIERS
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");  // this thread's copies, committed or not, have landed
#endif
  __syncthreads();
#endif
}

}  // namespace ss
