#pragma once
// CUDA-GL interop: CUDA writes the field straight into the GL texture. The texture is
// registered once; it is mapped only around the kernel that writes it and unmapped
// before GL draws (CUDA's rule: GL must not touch a mapped resource). Builds without
// CUDA get a stub whose constructor throws, so callers fall back to host copies.
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "stencilscope/render/colormap.hpp"
#include "stencilscope/render/field_texture.hpp"

namespace ss::render {

/// Min and max of the finite values of a field, and whether it held NaN or Inf.
struct FieldStats {
  ValueRange range{0, 0};
  bool finite = true;
};

/// True when this build contains the interop path (STENCILSCOPE_CUDA on).
bool interop_built();

/// A measuring aid (docs/perf.md, "the window's upload"): true when `flag` is one of the
/// comma-separated flags of STENCILSCOPE_INTEROP_PROBE. Here: "each" (a map per texture),
/// "map-only" (maps, no copies), "no-map" (copies into an array of CUDA's own, never
/// mapped: the textures keep old contents), "no-stats" (no min/max readback); the app's:
/// "sim-stream" (copies behind the batches), "no-wait" (snapshots do not wait for the
/// slot's last copy: unsafe, timing only).
bool interop_probe(std::string_view flag);

class FieldInterop {
 public:
  /// Registers `texture` with CUDA for surface writes (cudaGraphicsGLRegisterImage,
  /// SurfaceLoadStore). Needs the GL context current and a CUDA device driving it;
  /// throws ss::Error saying why not (no device, Mesa or WSL2 GL, built without CUDA).
  explicit FieldInterop(const FieldTexture& texture);
  ~FieldInterop();
  FieldInterop(FieldInterop&&) noexcept;
  FieldInterop& operator=(FieldInterop&&) noexcept;
  FieldInterop(const FieldInterop&) = delete;
  FieldInterop& operator=(const FieldInterop&) = delete;

  /// Enqueues on `stream` (a cudaStream_t, after the work that produced the field): map,
  /// a kernel that copies the texture's nx*ny cells from device memory (`first_cell` is
  /// cell (0, 0), rows `row_pitch` floats apart) and reduces their min and max, unmap.
  /// Returns without waiting; GL commands issued afterwards see the new texture.
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
  /// As write_strided for each of `writes`, with ONE map of all their textures before
  /// the kernels and one unmap after them. Each map and unmap hands the textures between
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
