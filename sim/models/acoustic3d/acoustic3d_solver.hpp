#pragma once
// Acoustic 3D backends: HostAcoustic3D steps with the `cpu` variant, acoustic3d_reference
// is the double yardstick written plainly and independently, DeviceAcoustic3D runs the
// GPU variants. A step writes p^{n+1} into a third buffer from p^n (the only field read
// with a stencil) and p^{n-1}, adds the source at its node, writes the ghost faces of
// p^{n+1} (the boundary step) and records the receivers; then the buffers rotate.
//
// Sources: the setup's list, each added at its node after the interior update, in list
// order (acoustic_add_sources). Receivers: the setup's nodes (by default the line along x
// through the source), recording p after every step (sources included) for the first
// setup().trace_steps steps after a reset, a load or set_receivers: row r of the traces
// (one value per receiver) is step first_trace_step() + r + 1.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ghost3d.hpp"   // extract_interior3d, ghost_face_cells
#include "sim/core/slice3d.hpp"  // Sphere, SliceAxis
#include "sim/models/acoustic3d/acoustic3d.hpp"

namespace ss {

/// CPU backend: three padded buffers, stepped by the shared point function (OpenMP over
/// planes). Bitwise equal to the GPU variants.
template <typename T>
class HostAcoustic3D {
 public:
  explicit HostAcoustic3D(const Acoustic3DSetup& setup);

  /// p = p_prev = 0, t = 0, no traces.
  void reset();
  /// Advances n steps.
  void step(int n);
  /// p^n and p^{n-1}, padded (ghost faces of p written; those of p_prev are not read).
  const std::vector<T>& pressure() const { return field_[cur_]; }
  const std::vector<T>& previous() const { return field_[prev_]; }
  /// The velocity per node, padded (for views).
  const std::vector<float>& velocity() const { return velocity_; }
  /// Fills the buffer the next step writes with NaN (ghosts and padding included).
  void poison_scratch();
  /// Changes the order on the live field; dt stays (the automatic dt does not depend on
  /// the order). Throws ss::Error (and keeps the old order) when dt is above the new limit.
  void set_order(int order);
  /// Adds a Gaussian pulse value * exp(-r^2 / (2 (radius/2)^2)) inside the sphere to p and
  /// p_prev (a pulse at rest, which splits into outgoing waves); the free surface stays 0.
  void paint(const Sphere& sphere);
  /// The interiors of p and p_prev, x fastest.
  std::vector<T> interior() const;
  std::vector<T> previous_interior() const;
  /// Replaces p, p_prev (interiors, x fastest) and the step count; clears the traces and
  /// the CPML's memory variables.
  void load_interior(const T* p, const T* p_prev, long steps_done);
  /// Replaces the sources from the next step on; throws ss::Error and keeps them when one
  /// is refused (set_acoustic3d_sources).
  void set_sources(const std::vector<SourceSpec>& sources);
  /// Moves the receivers and starts their traces again; throws ss::Error and keeps them.
  void set_receivers(const ReceiverLayout& layout);
  /// The CPML's memory variables (CpmlLayout::slab_base order; empty without CPML).
  const std::vector<T>& cpml_memory() const { return cpml_memory_; }
  /// Receiver traces: rows of one value per receiver (see the file comment).
  const std::vector<T>& traces() const { return traces_; }
  int trace_rows() const { return static_cast<int>(traces_.size() / setup_.receivers.size()); }
  long first_trace_step() const { return trace_first_; }
  const Acoustic3DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_done_; }
  double time() const { return steps_done_ * setup_.dt; }

 private:
  void refresh_ghosts();
  Acoustic3DSetup setup_;
  std::vector<T> field_[3];
  std::vector<T> c2_, damping_;
  std::vector<T> cpml_memory_, cpml_table_;  // CPML: psi and zeta per slab, the coefficients
  std::vector<float> velocity_;
  std::vector<T> traces_;
  int prev_ = 0, cur_ = 1, next_ = 2;
  long steps_done_ = 0, trace_first_ = 0;
};

/// The reference after `steps` steps from rest in double: p (interior, x fastest) and,
/// when `traces` is given, the receiver rows of every step.
std::vector<double> acoustic3d_reference(const Acoustic3DSetup& setup, int steps, std::vector<double>* traces = nullptr);

/// The discrete energy of the leapfrog scheme between p_prev (t - dt) and p (t), in
/// double: h^3 / 2 sum [ ((p - p_prev) / dt)^2 / v^2 - p (lap_h p_prev) ], lap_h the
/// order's Laplacian (1/h^2) under the boundary's ghosts. Conserved to rounding by the
/// scheme without source and sponge (periodic box); it falls inside a sponge.
double acoustic3d_energy(const Acoustic3DSetup& setup, const std::vector<float>& p, const std::vector<float>& p_prev);

/// The pulse a paint adds over the sphere's cell box (x fastest, every cell of the box;
/// 0 outside the sphere and, under a free top, on the surface k = 0), in double.
std::vector<double> acoustic3d_paint_pulse(const Sphere& sphere, const CellBox& box, bool free_top);

/// Writes receiver traces (rows of nx values, as from traces() of the default line) as an (rows, nx) .npy file.
void write_traces_npy(const std::string& path, const std::vector<float>& traces, int nx);

/// GPU backend: three padded buffers, the per-node (v dt/h)^2, the damping tables and
/// the traces in device memory, all work on the object's own stream. Every method throws
/// ss::Error when there is no usable CUDA device.
template <typename T>
class DeviceAcoustic3D {
 public:
  explicit DeviceAcoustic3D(const Acoustic3DSetup& setup);
  ~DeviceAcoustic3D();
  DeviceAcoustic3D(DeviceAcoustic3D&&) noexcept;
  DeviceAcoustic3D& operator=(DeviceAcoustic3D&&) noexcept;
  DeviceAcoustic3D(const DeviceAcoustic3D&) = delete;
  DeviceAcoustic3D& operator=(const DeviceAcoustic3D&) = delete;

  /// p = p_prev = 0, t = 0, no traces (synchronous).
  void reset();
  /// Enqueues n steps of a GPU variant (asynchronous).
  void step(Acoustic3DVariant variant, int n);
  /// Runs n steps and returns their time in ms (CUDA events).
  double timed_steps(Acoustic3DVariant variant, int n);
  /// Enqueues n steps between two timing events without waiting.
  void step_timed_async(Acoustic3DVariant variant, int n);
  /// The time of the last step_timed_async batch once finished (never blocks).
  std::optional<double> finished_batch_ms();
  bool idle() const;
  void synchronize();
  /// Fills the buffer the next step writes with NaN (ghosts and padding included).
  void poison_scratch();
  /// The tile and ring stream25d runs with (from STENCILSCOPE_ACOUSTIC25 at construction).
  void set_stream_shape(Acoustic3DStreamShape shape);
  Acoustic3DStreamShape stream_shape() const;
  /// The whole padded p, after queued work (synchronous).
  std::vector<T> download() const;
  /// Interiors of p and p_prev (x fastest) to host memory, after queued work (synchronous).
  void copy_interiors_to_host(T* p, T* p_prev) const;
  /// Replaces p, p_prev and the step count; clears the traces and the CPML's memory
  /// variables (synchronous).
  void load_interior(const T* p, const T* p_prev, long steps_done);
  /// As HostAcoustic3D::set_order.
  void set_order(int order);
  /// As HostAcoustic3D::paint, on the device.
  void paint(const Sphere& sphere);
  /// Device pointers to p and to the velocity (padded layout of setup().grid), valid
  /// until the next step; work on them must be ordered on native_stream().
  const T* device_pressure() const;
  const float* device_velocity() const;
  void* native_stream() const;
  /// Slice of p (velocity: of the medium) at `position`: only the slice crosses the bus.
  void copy_slice_to_host(SliceAxis axis, int position, bool velocity, float* dst);
  /// As HostAcoustic3D's (the list is uploaded; synchronous).
  void set_sources(const std::vector<SourceSpec>& sources);
  void set_receivers(const ReceiverLayout& layout);
  /// The receiver traces so far (rows of one value per receiver), after queued work (synchronous).
  std::vector<T> traces() const;
  /// The CPML's memory variables as HostAcoustic3D::cpml_memory (synchronous).
  std::vector<T> cpml_memory() const;
  long first_trace_step() const;
  const Acoustic3DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
