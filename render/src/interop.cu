// CUDA-GL interop: the only translation unit that includes cuda_gl_interop.h.
#include <glad/gl.h>  // first: it defines the GL header guards cuda_gl_interop.h would otherwise fill
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stencilscope/render/interop.hpp"

namespace ss::render {

namespace {

void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string(file) + ":" + std::to_string(line) + " " + expr + ": " + cudaGetErrorString(e));
}
/// For destructors: report, never throw.
void cuda_log(cudaError_t e, const char* expr) noexcept {
  if (e != cudaSuccess) std::fprintf(stderr, "stencilscope: warning: %s: %s\n", expr, cudaGetErrorString(e));
}
#define SS_INTEROP_CHECK(x) cuda_check((x), #x, __FILE__, __LINE__)
#define SS_INTEROP_LOG(x) cuda_log((x), #x)

/// Floats as ints whose signed order is the floats' order (for atomicMin/Max).
__device__ __forceinline__ int ordered_int(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
float from_ordered_int(int i) {
  const int bits = i >= 0 ? i : i ^ 0x7fffffff;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

__global__ void reset_stats(int* stats) {
  stats[0] = INT_MAX;  // min
  stats[1] = INT_MIN;  // max
  stats[2] = 0;        // non-finite seen
}

constexpr int kBlockX = 32, kBlockY = 8;  // a warp is one row segment: coalesced loads
constexpr int kMaxBlocks = 1024;           // write_field_surface's grid: a few per SM

// Texel (i, j) = first_cell[i * col_stride + j * row_pitch]: a 2D field (col_stride 1)
// or a slice of a 3D one. A slice along x (col_stride = the row pitch) is not coalesced,
// but it is one slice, not the volume. The grid strides over the rows (gridDim.y is
// capped, kMaxBlocks): the blocks' min/max atomics all land on the same three words, and
// one set per block of 256 texels (65 k blocks at 4096^2) serialised there, holding the
// SMs the simulation's steps share (docs/perf.md, "the window's upload").
__global__ void write_field_surface(cudaSurfaceObject_t surface, const float* __restrict__ first_cell,
                                    std::size_t col_stride, std::size_t row_pitch, int nx, int ny, int* stats) {
  const int i = blockIdx.x * kBlockX + threadIdx.x;
  int lo = INT_MAX, hi = INT_MIN, bad = 0;
  if (i < nx) {
    for (int j = blockIdx.y * kBlockY + threadIdx.y; j < ny; j += gridDim.y * kBlockY) {
      const float v = first_cell[static_cast<std::size_t>(j) * row_pitch + static_cast<std::size_t>(i) * col_stride];
      surf2Dwrite(v, surface, i * static_cast<int>(sizeof(float)), j);
      if (isfinite(v)) {
        lo = min(lo, ordered_int(v));
        hi = max(hi, ordered_int(v));
      } else {
        bad = 1;
      }
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
    bad |= __shfl_xor_sync(0xffffffffu, bad, offset);
  }
  // One atomic per block, not per warp: at 4096^2 per-warp atomics on two addresses would serialize.
  __shared__ int warp_lo[kBlockY], warp_hi[kBlockY], warp_bad[kBlockY];
  if (threadIdx.x == 0) {
    warp_lo[threadIdx.y] = lo;
    warp_hi[threadIdx.y] = hi;
    warp_bad[threadIdx.y] = bad;
  }
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    for (int w = 1; w < kBlockY; ++w) {
      lo = min(lo, warp_lo[w]);
      hi = max(hi, warp_hi[w]);
      bad |= warp_bad[w];
    }
    if (lo != INT_MAX) atomicMin(&stats[0], lo);
    if (hi != INT_MIN) atomicMax(&stats[1], hi);
    if (bad) atomicOr(&stats[2], 1);
  }
}

/// Maps registered resources on a stream, all in one call, for the guard's scope.
class ScopedMap {
 public:
  ScopedMap(std::span<cudaGraphicsResource_t> resources, cudaStream_t stream)
      : resources_(resources), stream_(stream) {
    if (!resources_.empty())
      SS_INTEROP_CHECK(cudaGraphicsMapResources(static_cast<int>(resources_.size()), resources_.data(), stream_));
  }
  ~ScopedMap() {
    if (!resources_.empty())
      SS_INTEROP_LOG(cudaGraphicsUnmapResources(static_cast<int>(resources_.size()), resources_.data(), stream_));
  }
  ScopedMap(const ScopedMap&) = delete;
  ScopedMap& operator=(const ScopedMap&) = delete;

 private:
  std::span<cudaGraphicsResource_t> resources_;
  cudaStream_t stream_;
};

}  // namespace

bool interop_probe(std::string_view flag) {
  static const std::string flags = [] {
    const char* v = std::getenv("STENCILSCOPE_INTEROP_PROBE");
    return "," + std::string(v ? v : "") + ",";
  }();
  return flags.find("," + std::string(flag) + ",") != std::string::npos;
}

namespace {

struct Probe {
  bool each = interop_probe("each"), map_only = interop_probe("map-only"), no_map = interop_probe("no-map"),
       no_stats = interop_probe("no-stats");
};
const Probe& probe() {
  static const Probe p;
  return p;
}

}  // namespace

bool interop_built() { return true; }

struct FieldInterop::Impl {
  cudaGraphicsResource_t resource = nullptr;
  cudaArray_t array = nullptr;  // the array the cached surface object refers to
  cudaSurfaceObject_t surface = 0;
  int* device_stats = nullptr;
  int* host_stats = nullptr;  // pinned: the async copy lands here
  int nx = 0, ny = 0;
  cudaArray_t own_array = nullptr;  // the no-map probe's target
  cudaSurfaceObject_t own_surface = 0;

  /// The surface object of the mapped texture (cached: the driver may move the
  /// texture's storage between maps, then it is made again).
  cudaSurfaceObject_t mapped_surface() {
    cudaArray_t mapped = nullptr;
    SS_INTEROP_CHECK(cudaGraphicsSubResourceGetMappedArray(&mapped, resource, 0, 0));
    if (mapped != array) {
      if (surface) SS_INTEROP_CHECK(cudaDestroySurfaceObject(surface));
      surface = 0;
      surface = make_surface(mapped);
      array = mapped;
    }
    return surface;
  }
  static cudaSurfaceObject_t make_surface(cudaArray_t a) {
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    SS_INTEROP_CHECK(cudaCreateSurfaceObject(&s, &desc));
    return s;
  }
  cudaSurfaceObject_t unmapped_surface() {
    if (!own_array) {
      const cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
      SS_INTEROP_CHECK(cudaMallocArray(&own_array, &f, nx, ny, cudaArraySurfaceLoadStore));
      own_surface = make_surface(own_array);
    }
    return own_surface;
  }
  /// The copy of the view and its stats' reduction, on `stream` (the texture mapped,
  /// except under the no-map probe).
  void launch(const float* first_cell, std::size_t u_stride, std::size_t v_stride, cudaStream_t stream) {
    if (probe().map_only) return;
    const cudaSurfaceObject_t target = probe().no_map ? unmapped_surface() : mapped_surface();
    if (!probe().no_stats) reset_stats<<<1, 1, 0, stream>>>(device_stats);
    const dim3 block(kBlockX, kBlockY);
    const int columns = (nx + kBlockX - 1) / kBlockX;
    const dim3 grid(columns, std::clamp(kMaxBlocks / columns, 1, (ny + kBlockY - 1) / kBlockY));
    write_field_surface<<<grid, block, 0, stream>>>(target, first_cell, u_stride, v_stride, nx, ny, device_stats);
    SS_INTEROP_CHECK(cudaGetLastError());
  }
  void copy_stats(cudaStream_t stream) {
    if (probe().map_only || probe().no_stats) return;
    SS_INTEROP_CHECK(cudaMemcpyAsync(host_stats, device_stats, 3 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  }

  ~Impl() {
    if (own_surface) SS_INTEROP_LOG(cudaDestroySurfaceObject(own_surface));
    if (own_array) SS_INTEROP_LOG(cudaFreeArray(own_array));
    if (surface) SS_INTEROP_LOG(cudaDestroySurfaceObject(surface));
    if (resource) SS_INTEROP_LOG(cudaGraphicsUnregisterResource(resource));
    if (device_stats) SS_INTEROP_LOG(cudaFree(device_stats));
    if (host_stats) SS_INTEROP_LOG(cudaFreeHost(host_stats));
  }
};

FieldInterop::FieldInterop(const FieldTexture& texture) : impl_(std::make_unique<Impl>()) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error("no CUDA device");
  }
  impl_->nx = texture.nx();
  impl_->ny = texture.ny();
  const cudaError_t e = cudaGraphicsGLRegisterImage(&impl_->resource, texture.gl_name(), GL_TEXTURE_2D,
                                                    cudaGraphicsRegisterFlagsSurfaceLoadStore |
                                                        cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    cudaGetLastError();
    impl_->resource = nullptr;
    throw Error(std::string("cudaGraphicsGLRegisterImage failed: ") + cudaGetErrorString(e) +
                " (is the GL context on the CUDA device?)");
  }
  SS_INTEROP_CHECK(cudaMalloc(&impl_->device_stats, 3 * sizeof(int)));
  SS_INTEROP_CHECK(cudaMallocHost(&impl_->host_stats, 3 * sizeof(int)));
  impl_->host_stats[0] = INT_MAX;
  impl_->host_stats[1] = INT_MIN;
  impl_->host_stats[2] = 0;
}

FieldInterop::~FieldInterop() = default;
FieldInterop::FieldInterop(FieldInterop&&) noexcept = default;
FieldInterop& FieldInterop::operator=(FieldInterop&&) noexcept = default;

void FieldInterop::write(const float* first_cell, std::size_t row_pitch, void* stream_ptr) {
  write_strided(first_cell, 1, row_pitch, stream_ptr);
}

void FieldInterop::write_strided(const float* first_cell, std::size_t u_stride, std::size_t v_stride,
                                 void* stream_ptr) {
  const Write one{this, first_cell, u_stride, v_stride};
  write_all(std::span<const Write>(&one, 1), stream_ptr);
}

void FieldInterop::write_all(std::span<const Write> writes, void* stream_ptr) {
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (probe().each && writes.size() > 1) {  // measuring: a map per texture
    for (const Write& w : writes) write_all(std::span<const Write>(&w, 1), stream_ptr);
    return;
  }
  std::vector<cudaGraphicsResource_t> resources;
  if (!probe().no_map)
    for (const Write& w : writes) resources.push_back(w.target->impl_->resource);
  {
    ScopedMap map(resources, stream);
    for (const Write& w : writes) w.target->impl_->launch(w.first_cell, w.u_stride, w.v_stride, stream);
  }  // unmapped here, on the stream: GL work issued after this sees the textures
  for (const Write& w : writes) w.target->impl_->copy_stats(stream);
}

FieldStats FieldInterop::last_stats() const {
  const int* s = impl_->host_stats;
  FieldStats out;
  out.finite = s[2] == 0;
  if (s[0] <= s[1]) out.range = {from_ordered_int(s[0]), from_ordered_int(s[1])};
  return out;
}

}  // namespace ss::render
