#pragma once
// How a simulation's views reach the GL textures, for any model: on the CPU backend a
// glTexSubImage2D of the view (straight from the field when its rows are contiguous);
// on the GPU (upload(): the state now) the CUDA-GL interop kernel reads each view as a
// strided window of the device field (only the view is read) into the mapped texture
// (the map path; external only when forced), or, when none connects (Mesa, WSL) or
// interop is switched off, the simulation copies only the view to the host.
// STENCILSCOPE_INTEROP=shared|map|external|host forces one (render/interop.hpp).
//
// Queued ahead (GPU, issue 20): snapshot() copies each view, on the simulation's stream
// right behind a batch, into a dense device staging buffer (one of kSlots slots), so the
// next batch can be queued at once. Where the GL context and CUDA share memory (the
// shared path, render/interop.hpp) the slots live in that memory and show() only points
// the textures at a finished slot: GL draws it in place, and nothing crosses between the
// GL and the CUDA context on the GPU (the CPU orders them: a slot is drawn once its
// snapshot's event has been seen done, written again once a GL fence behind its last
// draw has been passed). Elsewhere show() writes the snapshot into the textures on the
// uploader's own stream (map path, or the host copy), never behind the batch that runs.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/model.hpp"
#include "sim/core/staging.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::app {

/// How the field reached the texture.
enum class UploadPath {
  shared,    ///< CUDA-GL interop, shared path: the staging slot drawn in place
  interop,   ///< CUDA-GL interop, map path: the texture mapped around each frame's copies
  external,  ///< CUDA-GL interop, external path: shared memory and semaphores, no map
  host_copy,
  cpu_backend
};
/// "CUDA-GL interop (shared slots)", "CUDA-GL interop (map)", "CUDA-GL interop (external
/// memory)", "device -> host -> texture copy", "CPU backend (glTexSubImage2D)".
std::string_view to_string(UploadPath p);
/// True for the three CUDA-GL interop paths.
bool is_interop(UploadPath p);

/// Min, max and finiteness of nx*ny values with rows `row_pitch` apart.
render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch);
/// The stats of both (the range spans both; finite only when both are).
render::FieldStats merge(const render::FieldStats& a, const render::FieldStats& b);

/// Keeps the textures of a running simulation up to date; owns the interop
/// connections (one per texture, kept while the texture lives) and the stats. The
/// interop path is chosen at the first GPU upload: the best that connects, for every
/// texture (interop_paths_to_try's order; one that fails is not tried again).
class ViewUploader {
 public:
  /// Writes `sim`'s views into `textures` (one per view, sized by view_size) after its
  /// queued work and returns the path taken; allow_interop false forces the host copy
  /// on the GPU. Throws ss::Error / render::GLError (a bad STENCILSCOPE_INTEROP too).
  UploadPath upload(Simulation& sim, std::span<render::FieldTexture* const> textures, const ViewPlacement& where,
                    bool allow_interop);
  /// Min, max and finiteness over all views of the last upload, once known (on the GPU
  /// when `sim`'s stream has passed the upload); empty before.
  std::optional<render::FieldStats> stats(const Simulation& sim);
  /// Forgets the stats of uploads not yet finished (the simulation they came from is gone).
  void forget_pending() { pending_ = false; }

  /// Staging slots: each batch queued while others run snapshots into its own slot, and
  /// one more for the slot the views show in place (BasicBatchQueue::kSlots).
  static constexpr int kSlots = 4;
  /// GPU: queues on `sim`'s stream, after its queued work, the copy of each view at
  /// `where` into staging slot `slot`, and the event snapshot_done() polls. It first
  /// orders the stream after the slot's last show() (map path, host copy), or waits on
  /// the CPU for GL to have passed its last draw from the slot (shared path: at once in
  /// practice, that draw is a frame old), so a snapshot never overwrites what a texture
  /// copy or a draw still reads. Throws ss::Error (the displayed slot: never written).
  void snapshot(Simulation& sim, const ViewPlacement& where, int slot);
  /// The slot the textures show in place (shared path), which no snapshot may take; -1: none.
  int displayed_slot() const { return displayed_; }
  /// True once slot `slot`'s snapshot has finished (never blocks).
  bool snapshot_done(int slot) const;
  /// Shows slot `slot`'s finished snapshot in `textures`: in place (shared path: the
  /// textures draw the slot's buffers from now on), or written on the uploader's own
  /// stream through interop (external, or each texture mapped for its copy only) or,
  /// without it, a copy to pinned host memory (waiting for that copy only) and
  /// glTexSubImage2D. Call it after the frame's drawing is issued. Never waits for the
  /// simulation's stream. Returns the path taken. Throws ss::Error / render::GLError.
  /// `sim_stream` (the simulation's stream) is used only under
  /// STENCILSCOPE_INTEROP_PROBE=sim-stream, a measuring aid: the copies then queue behind
  /// the batches instead of running beside them.
  UploadPath show(int slot, std::span<render::FieldTexture* const> textures, bool allow_interop,
                  void* sim_stream = nullptr);
  /// Why a better interop path is not in use, path by path ("shared: <why>; map:
  /// <why>"); empty when the best path is, or before a GPU upload.
  std::string interop_failure() const {
    if (shared_failure_.empty()) return failure_;
    return "shared: " + shared_failure_ + (failure_.empty() ? "" : "; " + failure_);
  }

 private:
  /// Connects new textures by the current path (choosing the paths at the first call);
  /// true when every texture is connected, false on the host copy.
  bool interop_ready(std::span<render::FieldTexture* const> textures);
  /// Whether snapshots go to shared memory (decided at the first GPU snapshot, with the
  /// GL context current; a slot that cannot be shared turns it off for good).
  bool shared_slots();
  /// The textures stop showing the displayed slot (GL commands issued before this are
  /// the last to read it: a fence behind them guards its next snapshot).
  void release_displayed();
  /// The UploadPath of the interop path in use.
  UploadPath interop_path() const;
  void refresh(const Simulation& sim);

  /// A snapshot of every view in device memory, and the events around its use.
  struct Slot {
    std::vector<DeviceFloats> views;                            // map path, host copy
    std::vector<std::optional<render::SharedFieldBuffer>> shared;  // shared path
    bool in_shared = false;                 // the last snapshot went to `shared`
    std::vector<std::array<int, 2>> sizes;  // (nu, nv) of each view
    GpuEvent taken;      // on the simulation's stream, after the copies
    GpuEvent released;   // on stream_, after show()'s copies from it
    bool shown = false;  // released has been recorded
    render::GLFence drawn;  // shared path: behind the last GL draw from it
    const float* view_data(std::size_t v) const { return in_shared ? shared[v]->device_data() : views[v].data(); }
  };
  std::array<std::optional<Slot>, kSlots> slots_;  // made on first use (GPU only)
  std::optional<GpuStream> stream_;                // show()'s copies
  PinnedFloats pinned_;
  int pending_slot_ = -1;  // pending_ stats come from show() of this slot (else: the simulation's stream)

  std::vector<std::optional<render::FieldInterop>> interop_;
  std::vector<unsigned> registered_;
  std::vector<render::InteropPath> paths_;  // to try, best first; empty before the first GPU upload
  std::size_t path_ = 0;                    // the one in use (paths_.back() is host)
  std::string failure_;
  std::optional<bool> shared_;  // shared_slots(), once decided
  std::string shared_failure_;  // why the slots are not shared (empty: they are, or forced otherwise)
  int displayed_ = -1;
  std::vector<float> host_;
  std::optional<render::FieldStats> stats_;
  bool pending_ = false;
};

}  // namespace ss::app
