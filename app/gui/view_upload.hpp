#pragma once
// How a simulation's views reach the GL textures, for any model: on the CPU backend a
// glTexSubImage2D of the view (straight from the field when its rows are contiguous);
// on the GPU the CUDA-GL interop kernel reads each view as a strided window of the
// device field (only the view is read), or, when interop cannot be registered (Mesa,
// WSL) or is switched off, the simulation copies only the view to the host.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/model.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::app {

/// How the field reached the texture.
enum class UploadPath { interop, host_copy, cpu_backend };
/// "CUDA-GL interop", "device -> host -> texture copy", "CPU backend (glTexSubImage2D)".
std::string_view to_string(UploadPath p);

/// Min, max and finiteness of nx*ny values with rows `row_pitch` apart.
render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch);
/// The stats of both (the range spans both; finite only when both are).
render::FieldStats merge(const render::FieldStats& a, const render::FieldStats& b);

/// Keeps the textures of a running simulation up to date; owns the interop
/// registrations (one per texture, kept while the texture lives) and the stats.
class ViewUploader {
 public:
  /// Writes `sim`'s views into `textures` (one per view, sized by view_size) after its
  /// queued work and returns the path taken; allow_interop false forces the host copy
  /// on the GPU. Throws ss::Error / render::GLError.
  UploadPath upload(Simulation& sim, std::span<render::FieldTexture* const> textures, const ViewPlacement& where,
                    bool allow_interop);
  /// Min, max and finiteness over all views of the last upload, once known (on the GPU
  /// when `sim`'s stream has passed the upload); empty before.
  std::optional<render::FieldStats> stats(const Simulation& sim);
  /// Forgets the stats of uploads not yet finished (the simulation they came from is gone).
  void forget_pending() { pending_ = false; }
  /// Why interop is not in use (empty when it is, or before a GPU upload).
  const std::string& interop_failure() const { return failure_; }

 private:
  bool interop_ready(std::span<render::FieldTexture* const> textures);
  void refresh(const Simulation& sim);

  std::vector<std::optional<render::FieldInterop>> interop_;
  std::vector<unsigned> registered_;
  std::string failure_;
  std::vector<float> host_;
  std::optional<render::FieldStats> stats_;
  bool pending_ = false;
};

}  // namespace ss::app
