// The app's handles for queueing work behind a simulation (staging.hpp): the only CUDA
// here is the strided gather of a view into a dense buffer.
#include <algorithm>
#include <utility>

#include "sim/core/cuda_check.cuh"
#include "sim/core/staging.hpp"

namespace ss {

namespace {

cudaStream_t stream_of(void* s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t event_of(void* e) { return static_cast<cudaEvent_t>(e); }

constexpr int kGatherX = 32, kGatherY = 8;

// dst[v * nu + u] = src[u * u_stride + v * v_stride]: a slice of a 3D field across rows.
__global__ void gather_view_kernel(const float* __restrict__ src, std::size_t u_stride, std::size_t v_stride, int nu,
                                   int nv, float* __restrict__ dst) {
  const int u = blockIdx.x * kGatherX + threadIdx.x;
  for (int v = blockIdx.y * kGatherY + threadIdx.y; v < nv; v += gridDim.y * kGatherY)
    if (u < nu)
      dst[static_cast<std::size_t>(v) * nu + u] =
          src[static_cast<std::size_t>(u) * u_stride + static_cast<std::size_t>(v) * v_stride];
}

}  // namespace

GpuStream::GpuStream() {
  cudaStream_t s = nullptr;  // the default, lowest priority: below the simulations' CudaStream
  SS_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  s_ = s;
}
GpuStream::~GpuStream() {
  if (s_) SS_CUDA_LOG(cudaStreamDestroy(stream_of(s_)));
}
GpuStream::GpuStream(GpuStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
GpuStream& GpuStream::operator=(GpuStream&& o) noexcept {
  std::swap(s_, o.s_);
  return *this;
}
void GpuStream::synchronize() const { SS_CUDA_CHECK(cudaStreamSynchronize(stream_of(s_))); }

GpuEvent::GpuEvent() {
  cudaEvent_t e = nullptr;
  SS_CUDA_CHECK(cudaEventCreate(&e));
  e_ = e;
}
GpuEvent::~GpuEvent() {
  if (e_) SS_CUDA_LOG(cudaEventDestroy(event_of(e_)));
}
GpuEvent::GpuEvent(GpuEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
GpuEvent& GpuEvent::operator=(GpuEvent&& o) noexcept {
  std::swap(e_, o.e_);
  return *this;
}
void GpuEvent::record(void* stream) { SS_CUDA_CHECK(cudaEventRecord(event_of(e_), stream_of(stream))); }
bool GpuEvent::done() const {
  const cudaError_t e = cudaEventQuery(event_of(e_));
  if (e == cudaErrorNotReady) return false;
  SS_CUDA_CHECK(e);
  return true;
}
void GpuEvent::synchronize() const { SS_CUDA_CHECK(cudaEventSynchronize(event_of(e_))); }
void GpuEvent::order_before(void* stream) const {
  SS_CUDA_CHECK(cudaStreamWaitEvent(stream_of(stream), event_of(e_), 0));
}

double elapsed_ms(const GpuEvent& a, const GpuEvent& b) {
  float ms = 0;
  SS_CUDA_CHECK(cudaEventElapsedTime(&ms, event_of(a.e_), event_of(b.e_)));
  return ms;
}

DeviceFloats::~DeviceFloats() {
  if (p_) SS_CUDA_LOG(cudaFree(p_));
}
DeviceFloats::DeviceFloats(DeviceFloats&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
DeviceFloats& DeviceFloats::operator=(DeviceFloats&& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
  return *this;
}
void DeviceFloats::reserve(std::size_t n) {
  if (n <= n_) return;
  if (p_) SS_CUDA_CHECK(cudaFree(std::exchange(p_, nullptr)));
  n_ = 0;
  SS_CUDA_CHECK(cudaMalloc(&p_, n * sizeof(float)));
  n_ = n;
}

PinnedFloats::~PinnedFloats() {
  if (p_) SS_CUDA_LOG(cudaFreeHost(p_));
}
PinnedFloats::PinnedFloats(PinnedFloats&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
PinnedFloats& PinnedFloats::operator=(PinnedFloats&& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
  return *this;
}
void PinnedFloats::reserve(std::size_t n) {
  if (n <= n_) return;
  if (p_) SS_CUDA_CHECK(cudaFreeHost(std::exchange(p_, nullptr)));
  n_ = 0;
  SS_CUDA_CHECK(cudaMallocHost(&p_, n * sizeof(float)));
  n_ = n;
}

void gather_view_async(const FieldView& f, float* dst, void* stream) {
  if (!f.on_device) throw Error("gather_view_async: the view is in host memory");
  if (f.nu <= 0 || f.nv <= 0) return;
  const float* first = f.data + f.offset;
  const cudaStream_t s = stream_of(stream);
  if (f.u_stride == 1) {  // rows are contiguous: a pitched copy
    SS_CUDA_CHECK(cudaMemcpy2DAsync(dst, f.nu * sizeof(float), first, f.v_stride * sizeof(float), f.nu * sizeof(float),
                                    f.nv, cudaMemcpyDeviceToDevice, s));
    return;
  }
  const dim3 block(kGatherX, kGatherY);
  const dim3 grid(blocks_for(f.nu, kGatherX), std::min<unsigned>(blocks_for(f.nv, kGatherY), 65535u));
  gather_view_kernel<<<grid, block, 0, s>>>(first, f.u_stride, f.v_stride, f.nu, f.nv, dst);
  SS_CUDA_LAUNCH_CHECK("gather_view_kernel");
}

void copy_to_host_async(float* dst, const float* src, std::size_t n, void* stream) {
  SS_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_of(stream)));
}

}  // namespace ss
