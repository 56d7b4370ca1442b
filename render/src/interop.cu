// CUDA-GL interop: the only translation unit that includes cuda_gl_interop.h. Both
// paths (interop.hpp): map (a registered texture) and external (shared memory and
// semaphores, no map per frame).
#include <glad/gl.h>  // first: it defines the GL header guards cuda_gl_interop.h would otherwise fill
#include <cuda.h>     // the virtual memory API's types (its calls are found at run time)
#include <cudaTypedefs.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exportable_semaphores.hpp"
#include "stencilscope/render/gl.hpp"
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

/// Where write_field's stats go: three device words the blocks reduce into (min, max as
/// ordered ints, non-finite seen), a counter of the blocks done, and three words of mapped
/// pinned host memory. The last block to finish publishes the words to the host and resets
/// them and the counter for the next write: one kernel, no memset, no copy on the stream.
/// `words` null: no stats (the no-stats probe).
struct StatsSink {
  int* words = nullptr;
  unsigned* arrived = nullptr;
  volatile int* host = nullptr;
};

constexpr int kBlockX = 32, kBlockY = 8;  // a warp is one row segment: coalesced loads
constexpr int kMaxBlocks = 1024;           // write_field's grid: a few per SM

/// Where the copy kernel's texels go, map path: the mapped texture's surface.
struct SurfaceTexels {
  cudaSurfaceObject_t surface;
  __device__ void store(int i, int j, float v) const { surf2Dwrite(v, surface, i * static_cast<int>(sizeof(float)), j); }
};
/// External path: the shared buffer, rows nx floats apart (what glTexSubImage2D reads).
struct LinearTexels {
  float* texels;
  int nx;
  __device__ void store(int i, int j, float v) const {
    texels[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i)] = v;
  }
};

// Texel (i, j) = first_cell[i * col_stride + j * row_pitch]: a 2D field (col_stride 1)
// or a slice of a 3D one. A slice along x (col_stride = the row pitch) is not coalesced,
// but it is one slice, not the volume. The grid strides over the rows (gridDim.y is
// capped, kMaxBlocks): the blocks' min/max atomics all land on the same three words, and
// one set per block of 256 texels (65 k blocks at 4096^2) serialised there, holding the
// SMs the simulation's steps share (docs/perf.md, "the window's upload").
template <typename Texels>
__global__ void write_field(Texels out, const float* __restrict__ first_cell, std::size_t col_stride,
                            std::size_t row_pitch, int nx, int ny, StatsSink stats) {
  const int i = blockIdx.x * kBlockX + threadIdx.x;
  int lo = INT_MAX, hi = INT_MIN, bad = 0;
  const auto take = [&](float v) {
    if (isfinite(v)) {
      lo = min(lo, ordered_int(v));
      hi = max(hi, ordered_int(v));
    } else {
      bad = 1;
    }
  };
  if (i < nx) {
    // kRows rows in flight per thread: the loads are issued before the stores, so the
    // snapshot (on the simulation's stream, between two batches) runs at memory speed.
    constexpr int kRows = 8;
    const int step = static_cast<int>(gridDim.y) * kBlockY;
    const float* column = first_cell + static_cast<std::size_t>(i) * col_stride;
    int j = static_cast<int>(blockIdx.y) * kBlockY + static_cast<int>(threadIdx.y);
    for (; j + (kRows - 1) * step < ny; j += kRows * step) {
      float v[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) v[r] = column[static_cast<std::size_t>(j + r * step) * row_pitch];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        out.store(i, j + r * step, v[r]);
        take(v[r]);
      }
    }
    for (; j < ny; j += step) {
      const float v = column[static_cast<std::size_t>(j) * row_pitch];
      out.store(i, j, v);
      take(v);
    }
  }
  if (!stats.words) return;
  for (int offset = 16; offset > 0; offset >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
    bad |= __shfl_xor_sync(0xffffffffu, bad, offset);
  }
  // One atomic per block, not per warp: at 4096^2 per-warp atomics on two addresses would serialize.
  __shared__ int warp_lo[kBlockY], warp_hi[kBlockY], warp_bad[kBlockY];
  __shared__ bool last;
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
    if (lo != INT_MAX) atomicMin(&stats.words[0], lo);
    if (hi != INT_MIN) atomicMax(&stats.words[1], hi);
    if (bad) atomicOr(&stats.words[2], 1);
    __threadfence();  // this block's atomics before its arrival
    last = atomicAdd(stats.arrived, 1u) == gridDim.x * gridDim.y - 1;
    if (last) {  // every other block has arrived: the words are final
      __threadfence();
      stats.host[0] = atomicExch(&stats.words[0], INT_MAX);
      stats.host[1] = atomicExch(&stats.words[1], INT_MIN);
      stats.host[2] = atomicExch(&stats.words[2], 0);
      *stats.arrived = 0;
      __threadfence_system();
    }
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

namespace {

/// The driver calls of the external path's memory, found at run time: the program links
/// no libcuda, so that it starts on machines without a driver.
struct VmmCalls {
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetAttribute_v2000 attribute = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 export_handle = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  std::string missing;  // the first call not found (empty: all found)
};

const VmmCalls& vmm_calls() {
  static const VmmCalls calls = [] {
    VmmCalls c;
    auto find = [&](const char* name, void** fn) {
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
          found != cudaDriverEntryPointSuccess || !*fn) {
        cudaGetLastError();
        *fn = nullptr;
        if (c.missing.empty()) c.missing = name;
      }
    };
    find("cuDeviceGet", reinterpret_cast<void**>(&c.device_get));
    find("cuDeviceGetAttribute", reinterpret_cast<void**>(&c.attribute));
    find("cuMemGetAllocationGranularity", reinterpret_cast<void**>(&c.granularity));
    find("cuMemCreate", reinterpret_cast<void**>(&c.create));
    find("cuMemRelease", reinterpret_cast<void**>(&c.release));
    find("cuMemExportToShareableHandle", reinterpret_cast<void**>(&c.export_handle));
    find("cuMemAddressReserve", reinterpret_cast<void**>(&c.reserve));
    find("cuMemAddressFree", reinterpret_cast<void**>(&c.address_free));
    find("cuMemMap", reinterpret_cast<void**>(&c.map));
    find("cuMemUnmap", reinterpret_cast<void**>(&c.unmap));
    find("cuMemSetAccess", reinterpret_cast<void**>(&c.set_access));
    return c;
  }();
  return calls;
}

void check_driver(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw Error(std::string(what) + " failed (CUresult " + std::to_string(r) + ")");
}
void log_driver(CUresult r, const char* what) noexcept {
  if (r != CUDA_SUCCESS) std::fprintf(stderr, "stencilscope: warning: %s failed (CUresult %d)\n", what, static_cast<int>(r));
}

/// True when the current CUDA device can allocate memory that leaves as a file
/// descriptor (cuMemCreate with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR); else says why.
bool device_exports_memory(std::string* why) {
  const VmmCalls& d = vmm_calls();
  if (!d.missing.empty()) {
    *why = "the CUDA driver has no " + d.missing;
    return false;
  }
  int ordinal = 0;
  CUdevice device = 0;
  int vmm = 0, fd = 0;
  if (cudaGetDevice(&ordinal) != cudaSuccess || d.device_get(&device, ordinal) != CUDA_SUCCESS ||
      d.attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device) != CUDA_SUCCESS ||
      d.attribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device) != CUDA_SUCCESS) {
    cudaGetLastError();
    *why = "could not ask the CUDA driver about the device's virtual memory support";
    return false;
  }
  if (!vmm) *why = "the CUDA device has no virtual memory management (cuMemCreate)";
  else if (!fd) *why = "the CUDA device cannot export memory as a file descriptor";
  return vmm && fd;
}

std::string joined(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

/// Drains GL's error flags; true when there was one.
bool gl_failed() {
  bool failed = false;
  for (int k = 0; k < 8 && glGetError() != GL_NO_ERROR; ++k) failed = true;
  return failed;
}

using Uuid = ExportableSemaphores::DeviceUuid;

Uuid cuda_device_uuid() {
  int ordinal = 0;
  SS_INTEROP_CHECK(cudaGetDevice(&ordinal));
  cudaDeviceProp prop{};
  SS_INTEROP_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  Uuid u{};
  std::memcpy(u.data(), prop.uuid.bytes, u.size());
  return u;
}

/// Throws when the GL context names its devices (GL_EXT_memory_object's UUIDs) and none
/// is `cuda`: the import would fail with a less helpful message.
void require_gl_on(const Uuid& cuda) {
  GLint n = 0;
  glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &n);
  if (gl_failed() || n <= 0) return;  // no UUIDs to compare: the import will tell
  for (GLint i = 0; i < n; ++i) {
    std::array<GLubyte, GL_UUID_SIZE_EXT> gl{};
    glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, static_cast<GLuint>(i), gl.data());
    if (std::memcmp(gl.data(), cuda.data(), cuda.size()) == 0) return;
  }
  gl_failed();
  throw Error("the GL context is not on the CUDA device (" + std::to_string(n) + " GL device UUIDs, none is CUDA's)");
}

/// Device memory that CUDA allocates exportable (cuMemCreate, a POSIX file descriptor) and
/// maps into its address space, and that GL imports (GL_EXT_memory_object_fd) as a
/// buffer's storage: what the shared and the external paths share with GL.
struct ExportedMemory {
  CUmemGenericAllocationHandle allocation = 0;
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  bool mapped = false;
  GLMemoryObject gl_memory;
  GLBuffer gl_buffer;

  ExportedMemory() = default;
  ExportedMemory(const ExportedMemory&) = delete;
  ExportedMemory& operator=(const ExportedMemory&) = delete;
  ~ExportedMemory() {
    // GL's import holds its own reference to the memory: a draw GL still runs keeps it.
    if (mapped) log_driver(vmm_calls().unmap(address, bytes), "cuMemUnmap");
    if (address) log_driver(vmm_calls().address_free(address, bytes), "cuMemAddressFree");
    if (allocation) log_driver(vmm_calls().release(allocation), "cuMemRelease");
  }  // then the GL objects (members): the context must be current

  /// At least `wanted` bytes, GL's buffer made with `target` bound. Throws ss::Error.
  void create(std::size_t wanted, GLenum target) {
    const VmmCalls& d = vmm_calls();
    int ordinal = 0;
    SS_INTEROP_CHECK(cudaGetDevice(&ordinal));
    CUdevice device = 0;
    check_driver(d.device_get(&device, ordinal), "cuDeviceGet");
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    check_driver(d.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
    bytes = (wanted + granularity - 1) / granularity * granularity;
    check_driver(d.create(&allocation, bytes, &prop, 0), "cuMemCreate (exportable as a file descriptor)");
    check_driver(d.reserve(&address, bytes, granularity, 0, 0), "cuMemAddressReserve");
    check_driver(d.map(address, bytes, 0, allocation, 0), "cuMemMap");
    mapped = true;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check_driver(d.set_access(address, bytes, &access, 1), "cuMemSetAccess");

    int memory_fd = -1;
    check_driver(d.export_handle(&memory_fd, allocation, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                 "cuMemExportToShareableHandle");
    gl_failed();  // errors left by others are not ours
    GLuint memory = 0;
    glCreateMemoryObjectsEXT(1, &memory);
    gl_memory = GLMemoryObject(memory);
    glImportMemoryFdEXT(memory, bytes, GL_HANDLE_TYPE_OPAQUE_FD_EXT, memory_fd);  // GL owns the fd once it succeeds
    if (gl_failed() || !glIsMemoryObjectEXT(memory)) {
      close(memory_fd);
      throw Error("glImportMemoryFdEXT refused CUDA's memory (" + std::to_string(bytes) + " bytes)");
    }
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    gl_buffer = GLBuffer(buffer);
    glBindBuffer(target, buffer);
    glBufferStorageMemEXT(target, static_cast<GLsizeiptr>(bytes), memory, 0);
    glBindBuffer(target, 0);
    if (gl_failed()) throw Error("glBufferStorageMemEXT failed on the imported memory");
  }
};

/// write_field's stats (StatsSink): the device words and counter, set to their start
/// values once (each write's last block resets them), and the mapped pinned host words.
struct StatsWords {
  int* device = nullptr;  // min, max, non-finite; then the counter
  int* host = nullptr;    // mapped pinned: the last block writes here
  int* host_on_device = nullptr;

  StatsWords() {
    SS_INTEROP_CHECK(cudaMalloc(&device, 4 * sizeof(int)));
    const int start[4] = {INT_MAX, INT_MIN, 0, 0};
    SS_INTEROP_CHECK(cudaMemcpy(device, start, sizeof start, cudaMemcpyHostToDevice));
    SS_INTEROP_CHECK(cudaHostAlloc(&host, 3 * sizeof(int), cudaHostAllocMapped));
    SS_INTEROP_CHECK(cudaHostGetDevicePointer(&host_on_device, host, 0));
    host[0] = INT_MAX;
    host[1] = INT_MIN;
    host[2] = 0;
  }
  StatsWords(const StatsWords&) = delete;
  StatsWords& operator=(const StatsWords&) = delete;
  ~StatsWords() {
    if (device) SS_INTEROP_LOG(cudaFree(device));
    if (host) SS_INTEROP_LOG(cudaFreeHost(host));
  }
  StatsSink sink(bool on = true) const {
    if (!on) return {};
    return {device, reinterpret_cast<unsigned*>(device + 3), host_on_device};
  }
  FieldStats read() const {
    const volatile int* h = host;
    const int lo = h[0], hi = h[1], bad = h[2];
    FieldStats out;
    out.finite = bad == 0;
    if (lo <= hi) out.range = {from_ordered_int(lo), from_ordered_int(hi)};
    return out;
  }
};

/// write_field's launch shape for an nx-by-ny view: 32-column blocks, the rows strided
/// so that the grid stays within kMaxBlocks.
dim3 write_grid(int nx, int ny) {
  const int columns = (nx + kBlockX - 1) / kBlockX;
  return dim3(columns, std::clamp(kMaxBlocks / columns, 1, (ny + kBlockY - 1) / kBlockY));
}

}  // namespace

InteropSupport query_interop_support(std::string* why_not_external, std::string* why_not_shared) {
  InteropSupport s;
  std::string device_why;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    device_why = "no CUDA device";
  } else {
    s.cuda_device = true;
  }
  if (s.cuda_device) {
    s.cuda_export = device_exports_memory(&device_why);
  }
  const std::vector<std::string> advertised = gl_extensions();
  auto why_for = [&](std::span<const std::string_view> wanted, bool& supported) {
    const std::vector<std::string_view> missing = missing_gl_extensions(wanted, advertised);
    supported = missing.empty();
    std::string why = device_why;
    if (!missing.empty()) why += (why.empty() ? "" : "; ") + ("the GL context lacks " + joined(missing));
    return why;
  };
  const std::string external = why_for(external_gl_extensions(), s.gl_external_objects);
  const std::string shared = why_for(shared_gl_extensions(), s.gl_memory_objects);
  if (why_not_external) *why_not_external = external;
  if (why_not_shared) *why_not_shared = shared;
  return s;
}

struct SharedFieldBuffer::Impl {
  int nx = 0, ny = 0;
  std::optional<StatsWords> stats;
  ExportedMemory memory;
  GLTexture texture;  // the R32F buffer texture over memory.gl_buffer
};

SharedFieldBuffer::SharedFieldBuffer(int nx, int ny) : impl_(std::make_unique<Impl>()) {
  if (nx <= 0 || ny <= 0) throw Error("a shared field buffer needs a positive size");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error("no CUDA device");
  }
  SS_INTEROP_CHECK(cudaFree(nullptr));  // the primary context, before the driver's memory calls
  const std::vector<std::string_view> missing = missing_gl_extensions(shared_gl_extensions(), gl_extensions());
  if (!missing.empty()) throw Error("the GL context lacks " + joined(missing));
  require_gl_on(cuda_device_uuid());
  std::string why;
  if (!device_exports_memory(&why)) throw Error(why);
  GLint max_texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
  const long long texels = static_cast<long long>(nx) * ny;
  if (gl_failed() || texels > max_texels)
    throw Error("a " + std::to_string(nx) + "x" + std::to_string(ny) + " view exceeds GL_MAX_TEXTURE_BUFFER_SIZE (" +
                std::to_string(max_texels) + " texels)");
  impl_->nx = nx;
  impl_->ny = ny;
  impl_->memory.create(static_cast<std::size_t>(texels) * sizeof(float), GL_TEXTURE_BUFFER);
  GLuint name = 0;
  glGenTextures(1, &name);
  impl_->texture = GLTexture(name);
  glBindTexture(GL_TEXTURE_BUFFER, name);
  glTexBufferRange(GL_TEXTURE_BUFFER, GL_R32F, impl_->memory.gl_buffer.get(), 0,
                   static_cast<GLsizeiptr>(texels) * static_cast<GLsizeiptr>(sizeof(float)));
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  if (gl_failed()) throw Error("glTexBufferRange failed on the imported buffer");
  impl_->stats.emplace();
}

SharedFieldBuffer::~SharedFieldBuffer() = default;
SharedFieldBuffer::SharedFieldBuffer(SharedFieldBuffer&&) noexcept = default;
SharedFieldBuffer& SharedFieldBuffer::operator=(SharedFieldBuffer&&) noexcept = default;

void SharedFieldBuffer::write(const float* first_cell, std::size_t u_stride, std::size_t v_stride, void* stream_ptr) {
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  Impl& m = *impl_;
  const LinearTexels out{reinterpret_cast<float*>(m.memory.address), m.nx};
  write_field<<<write_grid(m.nx, m.ny), dim3(kBlockX, kBlockY), 0, stream>>>(out, first_cell, u_stride, v_stride, m.nx,
                                                                             m.ny, m.stats->sink());
  SS_INTEROP_CHECK(cudaGetLastError());
}

FieldStats SharedFieldBuffer::last_stats() const { return impl_->stats->read(); }
int SharedFieldBuffer::nx() const { return impl_->nx; }
int SharedFieldBuffer::ny() const { return impl_->ny; }
const float* SharedFieldBuffer::device_data() const { return reinterpret_cast<const float*>(impl_->memory.address); }
unsigned SharedFieldBuffer::gl_buffer() const { return impl_->memory.gl_buffer.get(); }
unsigned SharedFieldBuffer::buffer_texture() const { return impl_->texture.get(); }

struct FieldInterop::Impl {
  InteropPath path = InteropPath::map;
  std::optional<StatsWords> stats;
  int nx = 0, ny = 0;

  // map path
  cudaGraphicsResource_t resource = nullptr;
  cudaArray_t array = nullptr;  // the array the cached surface object refers to
  cudaSurfaceObject_t surface = 0;
  cudaArray_t own_array = nullptr;  // the no-map probe's target
  cudaSurfaceObject_t own_surface = 0;

  // external path: a buffer CUDA writes and GL copies into the texture, shared once, and
  // two semaphores: `written` (CUDA signals after its kernel, GL waits before its copy)
  // and `read` (GL signals after its copy, CUDA's next write waits for it).
  unsigned texture = 0;
  std::optional<ExportableSemaphores> semaphores;  // the Vulkan device that made them
  GLSemaphore gl_written, gl_read;
  cudaExternalSemaphore_t cuda_written = nullptr, cuda_read = nullptr;
  bool read_signalled = false;       // GL has signalled `read` and CUDA has not yet waited for it
  cudaEvent_t last_write = nullptr;  // the destructor waits for it before freeing the buffer
  std::optional<ExportedMemory> memory;  // the shared buffer

  /// The surface object of the mapped texture (cached: the driver may move the
  /// texture's storage between maps, then it is made again).
  cudaSurfaceObject_t mapped_surface() {
    cudaArray_t mapped_array = nullptr;
    SS_INTEROP_CHECK(cudaGraphicsSubResourceGetMappedArray(&mapped_array, resource, 0, 0));
    if (mapped_array != array) {
      if (surface) SS_INTEROP_CHECK(cudaDestroySurfaceObject(surface));
      surface = 0;
      surface = make_surface(mapped_array);
      array = mapped_array;
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
  /// The copy of the view and its stats' reduction, on `stream`: into the mapped texture
  /// (except under the no-map probe), or into the shared buffer.
  void launch(const float* first_cell, std::size_t u_stride, std::size_t v_stride, cudaStream_t stream) {
    if (path == InteropPath::map && probe().map_only) return;
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid = write_grid(nx, ny);
    if (path == InteropPath::external) {
      const LinearTexels out{reinterpret_cast<float*>(memory->address), nx};
      write_field<<<grid, block, 0, stream>>>(out, first_cell, u_stride, v_stride, nx, ny, stats->sink(!probe().no_stats));
    } else {
      const SurfaceTexels out{probe().no_map ? unmapped_surface() : mapped_surface()};
      write_field<<<grid, block, 0, stream>>>(out, first_cell, u_stride, v_stride, nx, ny, stats->sink(!probe().no_stats));
    }
    SS_INTEROP_CHECK(cudaGetLastError());
  }


  void connect_map(const FieldTexture& t);
  void connect_external(const FieldTexture& t);
  /// External path, GL's half of a write: after CUDA's `written` signal, copy the buffer
  /// into the texture and signal `read`. GL commands issued after it see the new texture.
  void copy_into_texture();

  ~Impl() {
    if (last_write) {
      SS_INTEROP_LOG(cudaEventSynchronize(last_write));  // no kernel still writes the buffer
      SS_INTEROP_LOG(cudaEventDestroy(last_write));
    }
    if (cuda_written) SS_INTEROP_LOG(cudaDestroyExternalSemaphore(cuda_written));
    if (cuda_read) SS_INTEROP_LOG(cudaDestroyExternalSemaphore(cuda_read));
    if (own_surface) SS_INTEROP_LOG(cudaDestroySurfaceObject(own_surface));
    if (own_array) SS_INTEROP_LOG(cudaFreeArray(own_array));
    if (surface) SS_INTEROP_LOG(cudaDestroySurfaceObject(surface));
    if (resource) SS_INTEROP_LOG(cudaGraphicsUnregisterResource(resource));
  }  // then the GL objects (members): the context must be current, as for the texture
};

void FieldInterop::Impl::connect_map(const FieldTexture& t) {
  const cudaError_t e = cudaGraphicsGLRegisterImage(&resource, t.gl_name(), GL_TEXTURE_2D,
                                                    cudaGraphicsRegisterFlagsSurfaceLoadStore |
                                                        cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    cudaGetLastError();
    resource = nullptr;
    throw Error(std::string("cudaGraphicsGLRegisterImage failed: ") + cudaGetErrorString(e) +
                " (is the GL context on the CUDA device?)");
  }
}

void FieldInterop::Impl::connect_external(const FieldTexture& t) {
  const std::vector<std::string_view> missing = missing_external_gl_extensions(gl_extensions());
  if (!missing.empty()) throw Error("the GL context lacks " + joined(missing));
  const Uuid uuid = cuda_device_uuid();
  require_gl_on(uuid);
  std::string why;
  if (!device_exports_memory(&why)) throw Error(why);
  texture = t.gl_name();
  // CUDA's side and GL's: one buffer, GL's a pixel unpack buffer.
  memory.emplace().create(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) * sizeof(float),
                          GL_PIXEL_UNPACK_BUFFER);

  // The semaphores: made by Vulkan, imported by both (each import takes its own fd).
  semaphores.emplace(uuid, 2);
  auto import_both = [&](int k, GLSemaphore& gl, cudaExternalSemaphore_t& cuda) {
    const int gl_fd = semaphores->export_fd(k);
    GLuint name = 0;
    glGenSemaphoresEXT(1, &name);
    gl = GLSemaphore(name);
    glImportSemaphoreFdEXT(name, GL_HANDLE_TYPE_OPAQUE_FD_EXT, gl_fd);
    if (gl_failed() || !glIsSemaphoreEXT(name)) {
      close(gl_fd);
      throw Error("glImportSemaphoreFdEXT refused Vulkan's semaphore");
    }
    const int cuda_fd = semaphores->export_fd(k);
    cudaExternalSemaphoreHandleDesc desc{};
    desc.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
    desc.handle.fd = cuda_fd;
    const cudaError_t e = cudaImportExternalSemaphore(&cuda, &desc);  // CUDA owns the fd once it succeeds
    if (e != cudaSuccess) {
      cudaGetLastError();
      close(cuda_fd);
      cuda = nullptr;
      throw Error(std::string("cudaImportExternalSemaphore failed: ") + cudaGetErrorString(e));
    }
  };
  import_both(0, gl_written, cuda_written);
  import_both(1, gl_read, cuda_read);
  SS_INTEROP_CHECK(cudaEventCreateWithFlags(&last_write, cudaEventDisableTiming));
}

void FieldInterop::Impl::copy_into_texture() {
  const GLuint buffer = memory->gl_buffer.get();
  glWaitSemaphoreEXT(gl_written.get(), 1, &buffer, 0, nullptr, nullptr);  // on the GPU: the CPU goes on
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  glBindTexture(GL_TEXTURE_2D, texture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, nx, ny, GL_RED, GL_FLOAT, nullptr);  // from offset 0 of the buffer
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glSignalSemaphoreEXT(gl_read.get(), 1, &buffer, 0, nullptr, nullptr);
  read_signalled = true;
}

FieldInterop::FieldInterop(const FieldTexture& texture, InteropPath path) : impl_(std::make_unique<Impl>()) {
  if (path == InteropPath::host) throw Error("the host copy is no interop path");
  if (path == InteropPath::shared) throw Error("the shared path connects staging slots (SharedFieldBuffer), not textures");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    throw Error("no CUDA device");
  }
  SS_INTEROP_CHECK(cudaFree(nullptr));  // the primary context, before the driver's memory calls
  impl_->path = path;
  impl_->nx = texture.nx();
  impl_->ny = texture.ny();
  if (path == InteropPath::external) impl_->connect_external(texture);
  else impl_->connect_map(texture);
  impl_->stats.emplace();
}

FieldInterop::~FieldInterop() = default;
FieldInterop::FieldInterop(FieldInterop&&) noexcept = default;
FieldInterop& FieldInterop::operator=(FieldInterop&&) noexcept = default;

InteropPath FieldInterop::path() const { return impl_->path; }

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
  std::vector<Impl*> external;
  for (const Write& w : writes) {
    Impl& m = *w.target->impl_;
    if (m.path == InteropPath::external) external.push_back(&m);
    else if (!probe().no_map) resources.push_back(m.resource);
  }
  // External: the kernels overwrite the buffers only once GL has copied their last contents.
  std::vector<cudaExternalSemaphore_t> semaphores;
  for (Impl* m : external)
    if (m->read_signalled) semaphores.push_back(m->cuda_read);
  if (!semaphores.empty()) {
    std::vector<cudaExternalSemaphoreWaitParams> wait(semaphores.size());
    SS_INTEROP_CHECK(cudaWaitExternalSemaphoresAsync(semaphores.data(), wait.data(),
                                                     static_cast<unsigned>(semaphores.size()), stream));
    for (Impl* m : external) m->read_signalled = false;
  }
  {
    ScopedMap map(resources, stream);
    for (const Write& w : writes) w.target->impl_->launch(w.first_cell, w.u_stride, w.v_stride, stream);
  }  // unmapped here, on the stream: GL work issued after this sees the map-path textures
  if (!external.empty()) {
    semaphores.clear();
    for (Impl* m : external) semaphores.push_back(m->cuda_written);
    std::vector<cudaExternalSemaphoreSignalParams> signal(semaphores.size());
    SS_INTEROP_CHECK(cudaSignalExternalSemaphoresAsync(semaphores.data(), signal.data(),
                                                       static_cast<unsigned>(semaphores.size()), stream));
    for (Impl* m : external) {
      SS_INTEROP_CHECK(cudaEventRecord(m->last_write, stream));
      m->copy_into_texture();  // GL waits for `written` on the GPU: GL work issued after it sees the texture
    }
    glFlush();  // `read`'s signals reach the GPU before CUDA's next write waits for them
    check_gl("copying the shared buffers into the field textures");
  }
}

FieldStats FieldInterop::last_stats() const { return impl_->stats->read(); }

}  // namespace ss::render
