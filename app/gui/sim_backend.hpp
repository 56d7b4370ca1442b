#pragma once
// The simulation as the app drives it: one interface over the CPU backend (HostHeat2D)
// and the GPU backend (DeviceHeat2D), including how each gets its field into the
// GL texture (CPU: glTexSubImage2D; GPU: CUDA-GL interop, or a device->host->texture
// copy when interop cannot be registered).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stencilscope/heat2d_solver.hpp"
#include "stencilscope/render/field_texture.hpp"
#include "stencilscope/render/interop.hpp"

namespace ss::app {

/// How the field reached the texture.
enum class UploadPath { interop, host_copy, cpu_backend };
/// "CUDA-GL interop", "device -> host -> texture copy", "CPU backend (glTexSubImage2D)".
std::string_view to_string(UploadPath p);

class SimBackend {
 public:
  virtual ~SimBackend() = default;

  /// "GPU: <device>" or "CPU".
  virtual std::string name() const = 0;
  virtual bool on_gpu() const = 0;
  virtual const Heat2DSetup& setup() const = 0;
  /// Copy bandwidth of this backend's memory (GB/s, read + write), measured once at start-up.
  virtual double copy_gbps() const = 0;
  /// Back to the initial condition, t = 0.
  virtual void reset() = 0;
  /// Changes the stencil order on the live field.
  virtual void set_order(int order) = 0;
  /// Starts n steps of `variant` (which must run on this backend). GPU: queued, returns
  /// at once. CPU: runs them before returning.
  virtual void start_batch(Heat2DVariant variant, int n) = 0;
  /// The last batch's time in ms once it has finished; empty while it runs (never blocks).
  virtual std::optional<double> finished_batch_ms() = 0;
  /// True when no work is queued.
  virtual bool idle() const = 0;
  /// Blocks until no work is queued.
  virtual void wait() = 0;
  /// Paints a disc (queued after running work on the GPU; no host copy of the field).
  virtual void paint(const Brush& brush) = 0;
  virtual long steps_done() const = 0;
  double time() const { return steps_done() * setup().dt; }
  /// The interior, row-major nx*ny (waits for queued work).
  virtual void copy_interior(std::vector<float>& out) = 0;
  /// Replaces the interior (row-major nx*ny) and the step count: a field carried
  /// over from the other backend.
  virtual void load_interior(const std::vector<float>& interior, long steps_done) = 0;
  /// Writes the current field into `texture` (after queued work) and returns the path
  /// taken; allow_interop false forces the host copy on the GPU. Throws ss::Error / render::GLError.
  virtual UploadPath upload(render::FieldTexture& texture, bool allow_interop) = 0;
  /// Min, max and finiteness of the last uploaded field, once known (the GPU learns them
  /// when its stream has passed the upload); empty before.
  virtual std::optional<render::FieldStats> upload_stats() = 0;
  /// Why interop is not in use (empty when it is, or on the CPU).
  virtual std::string interop_failure() const { return {}; }
};

/// The CPU backend.
std::unique_ptr<SimBackend> make_host_backend(const Heat2DSetup& setup);
/// The GPU backend; throws ss::Error when there is no usable CUDA device.
std::unique_ptr<SimBackend> make_device_backend(const Heat2DSetup& setup);

/// Min, max and finiteness of nx*ny values with rows `row_pitch` apart.
render::FieldStats field_stats(const float* first_cell, int nx, int ny, std::size_t row_pitch);

}  // namespace ss::app
