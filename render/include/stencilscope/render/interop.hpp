#pragma once
// CUDA-GL interop, three ways (InteropPath):
// - shared (the window's queued frames): each staging slot's views live in memory CUDA
//   allocates with the virtual memory API and exports as a file descriptor, which GL
//   imports once (GL_EXT_memory_object_fd) as a buffer and draws in place as an R32F
//   buffer texture (SharedFieldBuffer). No map, no semaphore, no copy on either side:
//   the two are ordered on the host. GL draws a slot only after the CPU has seen its
//   CUDA event complete, and CUDA writes a slot again only after the CPU has seen a GL
//   fence behind the last draw that read it. Neither context ever waits for the other
//   on the GPU: each such wait hands the GPU between the contexts, which is what the
//   map path's map and unmap cost the running simulation (docs/perf.md, "the window's
//   upload").
// - map: the texture is registered with CUDA once and mapped only around the kernels that
//   write it, unmapped before GL draws (CUDA's rule: GL must not touch a mapped resource).
//   Each map and unmap hands the GPU between the GL and the CUDA context. What upload()
//   uses (a texture's own store), and show() where shared is not available.
// - external: memory shared once, as shared, but GL copies it into the texture behind
//   Vulkan-made semaphores (GL waits for CUDA's `written` on the GPU, CUDA for GL's
//   `read`). Only when forced: its GL-side copy costs more than a map (session 18).
// Builds without CUDA get a stub whose constructors throw, so callers fall back to host
// copies. The choice of path (interop_paths_to_try, use_shared_slots) is host code, built
// in both.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stencilscope/render/colormap.hpp"
#include "stencilscope/render/field_texture.hpp"

namespace ss::render {

/// Min and max of the finite values of a field, and whether it held NaN or Inf.
struct FieldStats {
  ValueRange range{0, 0};
  bool finite = true;
};

/// True when this build contains the interop paths (STENCILSCOPE_CUDA on).
bool interop_built();

/// How a field in CUDA device memory reaches its GL texture.
enum class InteropPath {
  shared,    ///< the staging slots in memory GL draws in place; ordered on the host
  external,  ///< memory and semaphores shared once; no map per frame
  map,       ///< the texture registered with CUDA, mapped around each frame's writes
  host,      ///< no interop: the caller copies device -> host -> texture
};
/// "shared", "external", "map", "host": the values STENCILSCOPE_INTEROP takes.
std::string_view to_string(InteropPath p);
/// Parses a value of STENCILSCOPE_INTEROP: "shared", "map", "external" or "host"; empty
/// means automatic (nullopt). Throws ss::Error naming the variable, the value and the choices.
std::optional<InteropPath> parse_interop_path(std::string_view value);
/// STENCILSCOPE_INTEROP of this process, parsed (unset or empty: automatic). Throws as
/// parse_interop_path.
std::optional<InteropPath> interop_override();

/// The GL extensions the external path needs: GL_EXT_memory_object, GL_EXT_memory_object_fd,
/// GL_EXT_semaphore, GL_EXT_semaphore_fd.
std::span<const std::string_view> external_gl_extensions();
/// Those of external_gl_extensions() that `advertised` lacks (empty: all are there).
std::vector<std::string_view> missing_external_gl_extensions(std::span<const std::string> advertised);

/// The GL extensions the shared path needs: GL_EXT_memory_object, GL_EXT_memory_object_fd.
std::span<const std::string_view> shared_gl_extensions();
/// Those of `wanted` that `advertised` lacks (empty: all are there).
std::vector<std::string_view> missing_gl_extensions(std::span<const std::string_view> wanted,
                                                    std::span<const std::string> advertised);

/// What this process can do, as interop_paths_to_try needs it.
struct InteropSupport {
  bool gl_memory_objects = false;    ///< the GL context advertises every shared_gl_extensions()
  bool gl_external_objects = false;  ///< the GL context advertises every external_gl_extensions()
  bool cuda_device = false;          ///< interop is built in and there is a CUDA device
  bool cuda_export = false;          ///< that device exports memory as a file descriptor (cuMemCreate)
};
/// The paths to try, best first; the last is always host, which always works.
/// Forced (STENCILSCOPE_INTEROP): that path, then host (a forced path that fails leaves
/// the host copy, never the other interop path). Automatic: external where the GL
/// context and CUDA both can, map where there is a device, then host.
std::vector<InteropPath> interop_paths_to_try(const InteropSupport& support, std::optional<InteropPath> forced);

/// The paths to try for a texture's own store (upload(), and show() without shared
/// slots): interop_paths_to_try, where a forced `shared` means map for these.
std::vector<InteropPath> texture_paths_to_try(const InteropSupport& support, std::optional<InteropPath> forced);
/// Whether the queued frames' staging slots should live in shared memory (the shared
/// path): forced shared, or automatic where the GL context and CUDA both can; never when
/// another path is forced.
bool use_shared_slots(const InteropSupport& support, std::optional<InteropPath> forced);

/// Asks the GL context current on this thread and the current CUDA device (creates no GL
/// object; never throws). `why_not_external`, when given, receives why the external path
/// is not supported (empty when it is); `why_not_shared` the same for the shared path.
InteropSupport query_interop_support(std::string* why_not_external = nullptr, std::string* why_not_shared = nullptr);

/// A measuring aid (docs/perf.md, "the window's upload"): true when `flag` is one of the
/// comma-separated flags of STENCILSCOPE_INTEROP_PROBE. Here: "each" (a map per texture),
/// "map-only" (maps, no copies), "no-map" (copies into an array of CUDA's own, never
/// mapped: the textures keep old contents), "no-stats" (no min/max readback); the app's:
/// "sim-stream" (copies behind the batches), "no-wait" (snapshots do not wait for the
/// slot's last copy: unsafe, timing only), "gl-clear-only" (`record --measure --no-draw`:
/// each frame clears a small target and waits for GL), "gl-on-idle" (`record --measure`:
/// each frame's GL work waits for the queued batches), "gl-flush" (`record --measure`:
/// glFlush and a fence the next frame waits for, not glFinish). "each", "map-only" and "no-map" touch the map
/// path only.
bool interop_probe(std::string_view flag);

/// One view of a staging slot in memory CUDA and GL share (the shared path, top of this
/// file): CUDA writes it (write()), GL draws it in place through buffer_texture(), an R32F
/// buffer texture of nx * ny values, rows nx apart. No synchronisation of its own: the
/// caller lets GL read it only after the CPU has seen CUDA's write finish, and lets CUDA
/// write it only after the CPU has seen GL's last read finish (a GLFence).
class SharedFieldBuffer {
 public:
  /// Allocates nx * ny floats CUDA exports and GL imports. Needs the GL context current
  /// and on the CUDA device; throws ss::Error saying why not (no device, a GL context
  /// without GL_EXT_memory_object_fd, a field larger than GL_MAX_TEXTURE_BUFFER_SIZE,
  /// built without CUDA).
  SharedFieldBuffer(int nx, int ny);
  ~SharedFieldBuffer();
  SharedFieldBuffer(SharedFieldBuffer&&) noexcept;
  SharedFieldBuffer& operator=(SharedFieldBuffer&&) noexcept;
  SharedFieldBuffer(const SharedFieldBuffer&) = delete;
  SharedFieldBuffer& operator=(const SharedFieldBuffer&) = delete;

  /// Enqueues on `stream` (a cudaStream_t) the copy of a strided view into the buffer
  /// (value (u, v) from first_cell[u * u_stride + v * v_stride]) and the reduction of its
  /// min and max into pinned host memory. Returns without waiting.
  void write(const float* first_cell, std::size_t u_stride, std::size_t v_stride, void* stream);
  /// The stats of the last write, valid once `stream` has passed it.
  FieldStats last_stats() const;

  int nx() const;
  int ny() const;
  /// The values in device memory (CUDA's address), nx * ny floats, rows nx apart.
  const float* device_data() const;
  /// GL's names: the buffer over the shared memory and the R32F buffer texture over it.
  unsigned gl_buffer() const;
  unsigned buffer_texture() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class FieldInterop {
 public:
  /// Connects `texture` to CUDA by `path`. map: registers it for surface writes
  /// (cudaGraphicsGLRegisterImage, SurfaceLoadStore). external: shares a buffer of the
  /// texture's size and two semaphores between CUDA and GL (interop.hpp's top). Needs the
  /// GL context current and on the CUDA device; throws ss::Error saying why not (no
  /// device, Mesa or WSL2 GL, a missing GL extension or Vulkan, built without CUDA, host).
  explicit FieldInterop(const FieldTexture& texture, InteropPath path = InteropPath::map);
  ~FieldInterop();
  FieldInterop(FieldInterop&&) noexcept;
  FieldInterop& operator=(FieldInterop&&) noexcept;
  FieldInterop(const FieldInterop&) = delete;
  FieldInterop& operator=(const FieldInterop&) = delete;

  /// The path this texture is connected by (map or external).
  InteropPath path() const;

  /// Enqueues on `stream` (a cudaStream_t, after the work that produced the field) a
  /// kernel that copies the texture's nx*ny cells from device memory (`first_cell` is
  /// cell (0, 0), rows `row_pitch` floats apart) and reduces their min and max: map,
  /// kernel, unmap; or (external) kernel into the shared buffer, then GL's copy into the
  /// texture behind a semaphore. Needs the GL context current. Returns without waiting;
  /// GL commands issued afterwards see the new texture.
  void write(const float* first_cell, std::size_t row_pitch, void* stream);
  /// As write, for a strided view: texel (u, v) comes from first_cell[u * u_stride +
  /// v * v_stride]. The slicing kernel of 3D fields: an axis-aligned slice of a padded
  /// volume is such a view (slice3d.hpp), so only the slice is read.
  void write_strided(const float* first_cell, std::size_t u_stride, std::size_t v_stride, void* stream);

  /// One view's write for write_all: texel (u, v) of `target`'s texture comes from
  /// first_cell[u * u_stride + v * v_stride].
  struct Write {
    FieldInterop* target;
    const float* first_cell;
    std::size_t u_stride, v_stride;
  };
  /// As write_strided for each of `writes`, with ONE map of all their map-path textures
  /// before the kernels and one unmap after them, and one semaphore wait and one signal
  /// for all their external-path ones. Each map and unmap hands the textures between
  /// the GL and the CUDA context, which costs the running simulation more than the copy
  /// kernels do (docs/perf.md, "the window's upload"), so a frame maps once.
  static void write_all(std::span<const Write> writes, void* stream);

  /// The stats of the last write. Read without waiting: valid once `stream` has passed
  /// that write (e.g. when the simulation reports its stream idle).
  FieldStats last_stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss::render
