#pragma once
// CUDA error handling and the move-only owners of device handles (as in
// tiny-cuda-nn): SS_CUDA_CHECK throws ss::Error with file, line, expression and
// cudaGetErrorString; SS_CUDA_LOG only prints, for destructors.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "sim/core/error.hpp"

namespace ss {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  throw Error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + cudaGetErrorString(e));
}

}  // namespace ss

#define SS_CUDA_CHECK(expr)                                                 \
  do {                                                                      \
    const cudaError_t ss_err_ = (expr);                                     \
    if (ss_err_ != cudaSuccess) ::ss::throw_cuda_error(ss_err_, #expr, __FILE__, __LINE__); \
  } while (0)

#define SS_CUDA_LOG(expr)                                                                      \
  do {                                                                                         \
    const cudaError_t ss_err_ = (expr);                                                        \
    if (ss_err_ != cudaSuccess)                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(ss_err_)); \
  } while (0)

/// After every launch: configuration errors surface here, with the kernel's name.
#define SS_CUDA_LAUNCH_CHECK(name)                                                        \
  do {                                                                                    \
    const cudaError_t ss_err_ = cudaGetLastError();                                       \
    if (ss_err_ != cudaSuccess) ::ss::throw_cuda_error(ss_err_, "launch of " name, __FILE__, __LINE__); \
  } while (0)

namespace ss {

/// Owns count elements of device memory; move-only.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) SS_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_) SS_CUDA_LOG(cudaFree(ptr_));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Owns count elements of page-locked host memory (asynchronous copies from the device
/// land here without the host waiting); move-only.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count) SS_CUDA_CHECK(cudaMallocHost(&ptr_, count * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (ptr_) SS_CUDA_LOG(cudaFreeHost(ptr_));
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Owns a non-blocking CUDA stream of the device's highest priority: the simulations step
/// on these, so the block scheduler serves their kernels first and work on a stream of the
/// default (lowest) priority, as the window's texture copies (GpuStream), fills the SMs
/// the steps leave idle instead of taking them from the steps (docs/perf.md, "the
/// window's upload"). `second`: one level below the highest (where the device has more
/// than two), for the compute stream of a box whose halo exchange, on a stream of the
/// highest priority, must get its pack kernels in among the compute's blocks.
class CudaStream {
 public:
  enum class Priority { highest, second };
  explicit CudaStream(Priority p = Priority::highest) {
    int least = 0, greatest = 0;
    SS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const int priority = p == Priority::highest ? greatest : std::min(greatest + 1, least);
    SS_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
  }
  ~CudaStream() {
    if (s_) SS_CUDA_LOG(cudaStreamDestroy(s_));
  }
  CudaStream(CudaStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

/// Owns a CUDA event (timing enabled).
class CudaEvent {
 public:
  CudaEvent() { SS_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~CudaEvent() {
    if (e_) SS_CUDA_LOG(cudaEventDestroy(e_));
  }
  CudaEvent(CudaEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// Milliseconds between two recorded events (waits for the second).
inline double elapsed_ms(const CudaEvent& a, const CudaEvent& b) {
  SS_CUDA_CHECK(cudaEventSynchronize(b.get()));
  float ms = 0;
  SS_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return ms;
}

/// Whether all the work queued on `s` has finished (never waits).
inline bool stream_idle(cudaStream_t s) {
  const cudaError_t e = cudaStreamQuery(s);
  if (e == cudaErrorNotReady) return false;
  SS_CUDA_CHECK(e);
  return true;
}

/// The GPU time of a batch of work on a stream, read without waiting for it: begin() and
/// end() around the batch's launches; finished_ms() gives its milliseconds once, after it
/// has finished (nullopt while it runs, and when no batch is pending).
class BatchTimer {
 public:
  void begin(cudaStream_t s) { SS_CUDA_CHECK(cudaEventRecord(start_.get(), s)); }
  void end(cudaStream_t s) {
    SS_CUDA_CHECK(cudaEventRecord(stop_.get(), s));
    pending_ = true;
  }
  std::optional<double> finished_ms() {
    if (!pending_) return std::nullopt;
    const cudaError_t e = cudaEventQuery(stop_.get());
    if (e == cudaErrorNotReady) return std::nullopt;
    SS_CUDA_CHECK(e);
    pending_ = false;
    float ms = 0;
    SS_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms;
  }

 private:
  CudaEvent start_, stop_;
  bool pending_ = false;
};

/// Blocks needed to cover n items with blocks of b (the one round-up helper).
inline unsigned blocks_for(long long n, long long b) { return static_cast<unsigned>((n + b - 1) / b); }

}  // namespace ss
