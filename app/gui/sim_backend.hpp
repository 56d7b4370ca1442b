#pragma once
// The simulation as the app drives it: one interface over the CPU backends (HostHeat2D,
// HostHeat3D) and the GPU backends (DeviceHeat2D, DeviceHeat3D), including how each
// gets its views into the GL textures (CPU: glTexSubImage2D; GPU: CUDA-GL interop, or a
// device->host->texture copy when interop cannot be registered). Heat 2D has one view,
// the field; heat 3D has three, the XY, XZ and YZ slices (slice3d.hpp): on the GPU
// only the slices are read, never the whole volume.
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "settings.hpp"
#include "stencilscope/heat2d_solver.hpp"
#include "stencilscope/heat3d_solver.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::app {

/// How the field reached the texture.
enum class UploadPath { interop, host_copy, cpu_backend };
/// "CUDA-GL interop", "device -> host -> texture copy", "CPU backend (glTexSubImage2D)".
std::string_view to_string(UploadPath p);

/// Slice positions of a heat 3D scene, indexed by SliceAxis (XY: z, XZ: y, YZ: x).
using SlicePositions = std::array<int, 3>;

class SimBackend {
 public:
  virtual ~SimBackend() = default;

  /// "GPU: <device>" or "CPU".
  virtual std::string name() const = 0;
  virtual bool on_gpu() const = 0;
  virtual Model model() const = 0;
  /// The heat 2D setup (nullptr for heat 3D).
  virtual const Heat2DSetup* setup2d() const { return nullptr; }
  /// The heat 3D setup (nullptr for the other models).
  virtual const Heat3DSetup* setup3d() const { return nullptr; }
  /// The 3D grid of heat 3D and deriv3d (nullptr for heat 2D).
  virtual const Grid3D* grid3d() const { return nullptr; }
  /// Interior points, time step and its stability limit.
  virtual std::size_t points() const = 0;
  virtual double dt() const = 0;
  virtual double dt_limit() const = 0;
  /// Copy bandwidth of this backend's memory (GB/s, read + write), measured once at start-up.
  virtual double copy_gbps() const = 0;
  /// Back to the initial condition, t = 0.
  virtual void reset() = 0;
  /// Changes the stencil order on the live field.
  virtual void set_order(int order) = 0;
  /// Starts n steps of the settings' variant for this model (which must run on this
  /// backend). GPU: queued, returns at once. CPU: runs them before returning.
  virtual void start_batch(const SimSettings& settings, int n) = 0;
  /// The last batch's time in ms once it has finished; empty while it runs (never blocks).
  virtual std::optional<double> finished_batch_ms() = 0;
  /// True when no work is queued.
  virtual bool idle() const = 0;
  /// Blocks until no work is queued.
  virtual void wait() = 0;
  /// Paints at (u, v) (cell units) of view `view`: heat 2D a disc in the field, heat 3D
  /// a sphere centred in the slice's cell layer (queued after running work on the GPU;
  /// no host copy of the field).
  virtual void paint(int view, double u, double v, double radius, double value, const SlicePositions& slices) = 0;
  virtual long steps_done() const = 0;
  double time() const { return steps_done() * dt(); }
  /// The interior, x fastest (waits for queued work).
  virtual void copy_interior(std::vector<float>& out) = 0;
  /// Replaces the interior (x fastest) and the step count: a field carried over from
  /// the other backend.
  virtual void load_interior(const std::vector<float>& interior, long steps_done) = 0;
  /// Number of views (textures): 1 for heat 2D, 3 for heat 3D.
  virtual int views() const = 0;
  /// Texture size (nu, nv) of view `view`.
  virtual std::array<int, 2> view_size(int view) const = 0;
  /// Writes the current views into `textures` (one per view, sized by view_size) after
  /// queued work and returns the path taken; allow_interop false forces the host copy
  /// on the GPU. Throws ss::Error / render::GLError.
  virtual UploadPath upload(std::span<render::FieldTexture* const> textures, const SlicePositions& slices,
                            bool allow_interop) = 0;
  /// Min, max and finiteness over all views of the last upload, once known (the GPU
  /// learns them when its stream has passed the upload); empty before.
  virtual std::optional<render::FieldStats> upload_stats() = 0;
  /// Why interop is not in use (empty when it is, or on the CPU).
  virtual std::string interop_failure() const { return {}; }
};

/// The CPU backend of heat 2D.
std::unique_ptr<SimBackend> make_host_backend(const Heat2DSetup& setup);
/// The GPU backend of heat 2D; throws ss::Error when there is no usable CUDA device.
std::unique_ptr<SimBackend> make_device_backend(const Heat2DSetup& setup);
/// The CPU backend of heat 3D.
std::unique_ptr<SimBackend> make_host_backend(const Heat3DSetup& setup);
/// The GPU backend of heat 3D; throws ss::Error when there is no usable CUDA device.
std::unique_ptr<SimBackend> make_device_backend(const Heat3DSetup& setup);

/// The CPU backend of deriv3d: the derivative along `axis` of the static field f; a
/// batch of n steps recomputes it n times. Painting changes nothing.
std::unique_ptr<SimBackend> make_host_backend(const Deriv3DSetup& setup, Axis axis);
/// The GPU backend of deriv3d; throws ss::Error when there is no usable CUDA device.
std::unique_ptr<SimBackend> make_device_backend(const Deriv3DSetup& setup, Axis axis);

/// Min, max and finiteness of nx*ny values with rows `row_pitch` apart.
render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch);
/// The stats of both (the range spans both; finite only when both are).
render::FieldStats merge(const render::FieldStats& a, const render::FieldStats& b);

/// Texture size (nu, nv) of the slice view along `axis` of an nx-by-ny-by-nz grid.
std::array<int, 2> slice_view_size(int nx, int ny, int nz, SliceAxis axis);

}  // namespace ss::app
