#pragma once
// Elastic 3D backends: HostElastic3D steps with the `cpu` variant, elastic3d_reference is
// the double yardstick written plainly and independently, DeviceElastic3D runs the GPU
// variants. A step (Weiss & Shragge's nine):
//   1-2 strains and stresses from u^n (h sigma, six padded arrays); on a free top the
//       surface plane takes sigma_zj = 0 and the plane-stress horizontal stresses
//   4   explosion: the stress source at its node
//   3   the stress ghosts: wrapped (periodic), 0 (sponge), odd images of sigma_zj above a
//       free surface (stress imaging; after the source, so that a source near the surface
//       is imaged too)
//   5-7 the divergence, the force source at its node, the displacement update with the
//       sponge's damping
//   8   Clayton-Engquist on the outermost nodes of the absorbing faces (sponge only)
// Under cpml, the CPML's stress pass follows 1-2 and its update pass follows 5-7
// (elastic3d.hpp).
//   9   the ghosts of u^{n+1} (even mirror above a free surface), the receivers, the
//       rotation of the time levels.
// Sources: the setup's list; stress sources (explosion, moment) at step 4, forces at step 6,
// each over its band-limited box, in list order (elastic_add_stresses, elastic_add_forces).
// Receivers: the setup's nodes (by default the line along x at j = src_y, k = rec_z),
// recording ux, uy, uz after every step for the first setup().trace_steps steps after a
// reset, a load or set_receivers; row r (the ux block, the uy block, the uz block of one
// value per receiver) is step first_trace_step() + r + 1.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ghost3d.hpp"   // extract_interior3d, ghost_face_cells
#include "sim/core/slice3d.hpp"  // Sphere, SliceAxis
#include "sim/models/elastic3d/elastic3d.hpp"

namespace ss {

/// The state: u^n and u^{n-1}, three components each, interiors x fastest.
template <typename T>
struct ElasticState {
  std::array<std::vector<T>, 3> u, u_prev;
};

template <typename T>
class HostElastic3D {
 public:
  explicit HostElastic3D(const Elastic3DSetup& setup);

  /// u = u_prev = 0, t = 0, no traces.
  void reset();
  void step(int n);
  /// Component c (0 x, 1 y, 2 z) of u^n, padded (ghosts written).
  const std::vector<T>& displacement(int c) const { return u_[cur_][c]; }
  /// vp per node, padded (views).
  const std::vector<float>& vp() const { return vp_; }
  /// A derived quantity of u^n in the padded layout (views).
  const std::vector<float>& derived(ElasticDerived q);
  /// Fills every buffer the next step writes (u^{n+1}, the stresses) with NaN.
  void poison_scratch();
  /// Changes the order on the live field; dt stays. Throws (and keeps the order) above its limit.
  void set_order(int order);
  /// Adds a Gaussian bump of u_z at rest inside the sphere (value exp(-r^2 / (2 (radius/2)^2))).
  void paint(const Sphere& sphere);
  ElasticState<T> state() const;
  /// Replaces u, u_prev and the step count; clears the traces and the CPML's memory variables.
  void load(const ElasticState<T>& s, long steps_done);
  /// Replaces the sources from the next step on; throws ss::Error and keeps them.
  void set_sources(const std::vector<SourceSpec>& sources);
  /// Moves the receivers and starts their traces again; throws ss::Error and keeps them.
  void set_receivers(const ReceiverLayout& layout);
  /// The CPML's memory variables (CpmlLayout::slab_base order; empty without CPML).
  const std::vector<T>& cpml_memory() const { return cpml_memory_; }
  const std::vector<T>& traces() const { return traces_; }
  int trace_rows() const { return static_cast<int>(traces_.size() / (3 * setup_.receivers.size())); }
  long first_trace_step() const { return trace_first_; }
  const Elastic3DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_done_; }

 private:
  void refresh_ghosts();
  Elastic3DSetup setup_;
  std::vector<T> u_[3][3];
  std::vector<T> stress_[6];
  PaddedMedium<T> medium_;
  std::vector<T> damping_, source_weights_;
  std::vector<T> cpml_memory_, cpml_table_;  // CPML: psi and phi per slab, the coefficients
  std::vector<float> vp_, derived_;
  std::vector<T> traces_;
  int prev_ = 0, cur_ = 1, next_ = 2;
  long steps_done_ = 0, trace_first_ = 0;
};

/// The reference after `steps` steps from rest (or from `start`, at step 0) in double:
/// u^n (interiors), and when `traces` is given the receiver rows of every step.
ElasticState<double> elastic3d_reference(const Elastic3DSetup& setup, int steps, std::vector<double>* traces = nullptr,
                                         const ElasticState<double>* start = nullptr);

/// The scheme's discrete energy between u^{n-1} and u^n, in double:
///   h^3 / 2 sum [ rho |(u^n - u^{n-1}) / dt|^2 + sigma(u^n) : eps(u^{n-1}) ],
/// the strains and stresses of the order's first derivatives under the setup's ghosts.
/// Conserved to rounding by leapfrog in a periodic box without source.
double elastic3d_energy(const Elastic3DSetup& setup, const ElasticState<double>& s);

/// The state in double (from float or double).
template <typename T>
ElasticState<double> to_double(const ElasticState<T>& s);

/// The u_z pulse a paint adds over the sphere's cell box (x fastest, every cell of the
/// box; 0 outside the sphere), in double.
std::vector<double> elastic3d_paint_pulse(const Sphere& sphere, const CellBox& box);

/// Writes receiver traces (rows of 3 nx values) as a (rows, 3, nx) .npy file.
void write_elastic_traces_npy(const std::string& path, const std::vector<float>& traces, int nx);

/// GPU backend; every method throws ss::Error when there is no usable CUDA device.
template <typename T>
class DeviceElastic3D {
 public:
  explicit DeviceElastic3D(const Elastic3DSetup& setup);
  ~DeviceElastic3D();
  DeviceElastic3D(DeviceElastic3D&&) noexcept;
  DeviceElastic3D& operator=(DeviceElastic3D&&) noexcept;
  DeviceElastic3D(const DeviceElastic3D&) = delete;
  DeviceElastic3D& operator=(const DeviceElastic3D&) = delete;

  void reset();
  /// Enqueues n steps of a GPU variant.
  void step(Elastic3DVariant variant, int n);
  double timed_steps(Elastic3DVariant variant, int n);
  void step_timed_async(Elastic3DVariant variant, int n);
  std::optional<double> finished_batch_ms();
  bool idle() const;
  void synchronize();
  /// Fills every buffer the next step writes (u^{n+1}, strains, stresses, accelerations) with NaN.
  void poison_scratch();
  /// Component c of u^n, padded (synchronous).
  std::vector<T> download(int c) const;
  ElasticState<T> state() const;
  void load(const ElasticState<T>& s, long steps_done);
  void set_order(int order);
  void paint(const Sphere& sphere);
  /// Device pointer to the padded volume a view shows (a component, vp, or a derived
  /// quantity computed into a scratch volume), ordered on native_stream().
  const float* device_view_volume(int quantity);
  void* native_stream() const;
  /// Slice of the view volume of `quantity` at `position` to host memory.
  void copy_slice_to_host(SliceAxis axis, int position, int quantity, float* dst);
  /// As HostElastic3D's (the receivers are uploaded; synchronous).
  void set_sources(const std::vector<SourceSpec>& sources);
  void set_receivers(const ReceiverLayout& layout);
  std::vector<T> traces() const;
  /// The CPML's memory variables as HostElastic3D::cpml_memory (synchronous).
  std::vector<T> cpml_memory() const;
  long first_trace_step() const;
  const Elastic3DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// View quantities, in the order of the model's description.
enum ElasticQuantity { kViewUx = 0, kViewUy, kViewUz, kViewMagnitude, kViewDivergence, kViewCurl, kViewVp };

}  // namespace ss
