#pragma once
// What the app needs to queue work behind a simulation's batches without CUDA headers
// (app/ has none): a stream, an event, device and pinned host buffers of floats, and the
// gather of a strided view (FieldView) into a dense buffer on a stream. The frame loop
// uses them to snapshot the views right behind each GPU batch, so that the next batch
// can be queued at once and the frame never waits for the one running. Every method
// throws ss::Error on a CUDA failure, or in a build without the CUDA backend.
#include <cstddef>

#include "sim/core/model.hpp"

namespace ss {

/// Owns a non-blocking CUDA stream; move-only.
class GpuStream {
 public:
  GpuStream();
  ~GpuStream();
  GpuStream(GpuStream&& o) noexcept;
  GpuStream& operator=(GpuStream&& o) noexcept;
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;
  /// The cudaStream_t.
  void* get() const { return s_; }
  /// Blocks until the work queued on it has finished.
  void synchronize() const;

 private:
  void* s_ = nullptr;
};

/// Owns a CUDA event (timing on); move-only.
class GpuEvent {
 public:
  GpuEvent();
  ~GpuEvent();
  GpuEvent(GpuEvent&& o) noexcept;
  GpuEvent& operator=(GpuEvent&& o) noexcept;
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  /// Records it on `stream` (a cudaStream_t), after the work queued there.
  void record(void* stream);
  /// True once the work before the last record has finished (never blocks); true when
  /// never recorded.
  bool done() const;
  /// Blocks until done().
  void synchronize() const;
  /// Makes the work queued on `stream` from now on wait for this event (the host does not wait).
  void order_before(void* stream) const;

 private:
  friend double elapsed_ms(const GpuEvent& a, const GpuEvent& b);
  void* e_ = nullptr;
};

/// Milliseconds from `a` to `b`, both recorded and done.
double elapsed_ms(const GpuEvent& a, const GpuEvent& b);

/// Device memory of `size()` floats; grows on demand; move-only.
class DeviceFloats {
 public:
  DeviceFloats() = default;
  ~DeviceFloats();
  DeviceFloats(DeviceFloats&& o) noexcept;
  DeviceFloats& operator=(DeviceFloats&& o) noexcept;
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  /// At least n floats (the contents are lost when it grows; call only while no queued work uses it).
  void reserve(std::size_t n);
  float* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  float* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Page-locked host memory of `size()` floats (asynchronous copies land here); move-only.
class PinnedFloats {
 public:
  PinnedFloats() = default;
  ~PinnedFloats();
  PinnedFloats(PinnedFloats&& o) noexcept;
  PinnedFloats& operator=(PinnedFloats&& o) noexcept;
  PinnedFloats(const PinnedFloats&) = delete;
  PinnedFloats& operator=(const PinnedFloats&) = delete;
  /// At least n floats (as DeviceFloats::reserve).
  void reserve(std::size_t n);
  float* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  float* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Queues on `stream` the copy of a device view's nu * nv cells into dst (device
/// memory, u fastest): one cudaMemcpy2DAsync when its rows are contiguous, else a
/// strided gather kernel. Only the view is read, never the whole field.
void gather_view_async(const FieldView& view, float* dst, void* stream);

/// Queues on `stream` the copy of n floats from device memory to (pinned) host memory.
void copy_to_host_async(float* dst, const float* src, std::size_t n, void* stream);

}  // namespace ss
