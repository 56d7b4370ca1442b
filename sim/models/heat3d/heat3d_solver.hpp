#pragma once
// Heat 3D backends, as for heat 2D: HostHeat3D steps a field with the `cpu`
// variant; heat3d_reference is the double yardstick written plainly and
// independently; DeviceHeat3D runs the GPU variants.
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/models/heat2d/heat2d_solver.hpp"  // ErrorNorms, compare_to_reference
#include "sim/models/heat3d/heat3d.hpp"
#include "sim/core/box_simulation.hpp"
#include "sim/core/slice3d.hpp"  // Sphere, SliceAxis

namespace ss {

/// CPU backend: two padded buffers, stepped by the shared point function (OpenMP
/// over planes) followed by the boundary step. Bitwise equal to the GPU variants.
template <typename T>
class HostHeat3D {
 public:
  explicit HostHeat3D(const Heat3DSetup& setup);

  /// Back to the initial condition at t = 0.
  void reset();
  /// Advances n steps.
  void step(int n);
  const std::vector<T>& field() const { return field_[current_]; }
  /// Fills the buffer the next step writes with NaN (ghosts and padding included).
  void poison_scratch();
  /// Rewrites the ghost faces of the current field from its interior.
  void refresh_ghosts();
  /// False when the interior holds NaN or Inf.
  bool all_finite() const;
  /// Changes the stencil order on the live field (the field is kept; its ghosts
  /// follow the time steps x dt of the new order's dt).
  void set_order(int order);
  /// Paints a sphere into the current field and refreshes the ghosts.
  void paint(const Sphere& sphere);
  /// The interior, x fastest (nx*ny*nz values).
  std::vector<T> interior() const;
  /// Replaces the interior (x fastest) and the step count, e.g. a field carried over
  /// from the other backend; refreshes the ghosts.
  void load_interior(const T* interior, long steps_done);
  const Heat3DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_done_; }
  double time() const { return steps_done_ * setup_.dt; }

 private:
  Heat3DSetup setup_;
  std::vector<T> tables_;
  std::vector<T> field_[2];
  int current_ = 0;
  long steps_done_ = 0;
};

/// One rank's box of a distributed run on the CPU (sim/core/box_simulation.hpp): the
/// `cpu` variant's interior step on the box, the boundary step on the domain's faces
/// (fill_box_ghosts3d_host), the halo exchange on the others; bitwise equal to HostHeat3D
/// on the whole grid.
std::unique_ptr<BoxSimulation> make_heat3d_box(const Heat3DSetup& setup, const BoxPlacement& where);

/// One rank's box on the current CUDA device (heat3d_box_device.cu): the `global`,
/// `shared3d` or `stream25d` kernel on the box's layout, the boundary step on the domain's faces only
/// (at global indices, as fill_box_ghosts3d_host), the halo exchange (a DeviceHaloExchange
/// on device_stream()) on the others; bitwise equal to DeviceHeat3D and HostHeat3D on the
/// whole grid. Throws ss::Error for another variant or without a CUDA device.
std::unique_ptr<BoxSimulation> make_heat3d_device_box(const Heat3DSetup& setup, const BoxPlacement& where,
                                                      Heat3DVariant variant);

/// A GPU box (make_heat3d_device_box) that also answers what the window asks of a box and
/// the box itself does not: dt, its limit, the accounting, and the temperature view (its
/// interior, copied from the device); paint and loaded states go to the box.
std::unique_ptr<BoxSimulation> heat3d_box_with_views(std::unique_ptr<BoxSimulation> box, const Heat3DSetup& setup,
                                                     const BoxPlacement& where);

/// What heat3d's model hands to a distributed run on the GPU: the variant its GPU boxes
/// step with (stream25d, the fastest, reading its ghosts from memory on a box), what they
/// give the window (views, paints, loaded states) and the box maker.
struct Heat3DDeviceBoxes {
  static constexpr const char* variant = "stream25d";
  static constexpr bool shows = true;
  static constexpr bool paints = true;
  static std::unique_ptr<BoxSimulation> make(const Heat3DSetup& setup, const BoxPlacement& where,
                                             std::string_view variant_name) {
    return heat3d_box_with_views(make_heat3d_device_box(setup, where, parse_heat3d_variant(variant_name)), setup,
                                 where);
  }
};

/// The reference solution after `steps` steps in double: interior, x fastest.
std::vector<double> heat3d_reference(const Heat3DSetup& setup, int steps);

/// GPU backend: two padded buffers in device memory on the object's own stream;
/// one launch per step for the interior, one for the boundary step.
/// Every method throws ss::Error when there is no usable CUDA device.
template <typename T>
class DeviceHeat3D {
 public:
  explicit DeviceHeat3D(const Heat3DSetup& setup);
  ~DeviceHeat3D();
  DeviceHeat3D(DeviceHeat3D&&) noexcept;
  DeviceHeat3D& operator=(DeviceHeat3D&&) noexcept;
  DeviceHeat3D(const DeviceHeat3D&) = delete;
  DeviceHeat3D& operator=(const DeviceHeat3D&) = delete;

  /// Uploads the initial condition; t = 0.
  void reset();
  /// Enqueues n steps of a GPU variant (asynchronous).
  void step(Heat3DVariant variant, int n);
  /// Runs n steps and returns their time in ms (CUDA events).
  double timed_steps(Heat3DVariant variant, int n);
  /// Fills the buffer the next step writes with NaN (ghosts and padding included).
  void poison_scratch();
  /// Waits for the stream.
  void synchronize();
  /// Copies the whole padded current field to the host (synchronous).
  std::vector<T> download() const;
  /// Changes the stencil order on the live field (its ghosts follow the time
  /// steps x dt of the new order's dt).
  void set_order(int order);
  /// Device pointer to the current field (padded layout of setup().grid). Valid until
  /// the next step; work on it must be ordered on native_stream().
  const T* device_field() const;
  /// The cudaStream_t (as void*, so this header needs no CUDA) all work runs on.
  void* native_stream() const;
  /// Paints a sphere on the device (no host copy of the field) and refreshes the ghosts.
  void paint(const Sphere& sphere);
  /// The slice at `position` (nu*nv values, u fastest, see slice3d.hpp), gathered on the
  /// device into a slice-sized buffer, then copied: only the slice crosses the bus
  /// (ordered after queued work; synchronous).
  void copy_slice_to_host(SliceAxis axis, int position, T* dst);
  /// The interior (x fastest) to dst, after queued work (synchronous).
  void copy_interior_to_host(T* dst) const;
  /// Replaces the interior (x fastest, host memory) and the step count; refreshes the
  /// ghosts (synchronous).
  void load_interior(const T* interior, long steps_done);
  /// Rewrites the ghost faces of the current field from its interior.
  void refresh_ghosts();
  /// Enqueues n steps between two timing events without waiting for them.
  void step_timed_async(Heat3DVariant variant, int n);
  /// The time of the last step_timed_async batch once the GPU has finished it (never
  /// blocks); empty while it runs or when none was queued.
  std::optional<double> finished_batch_ms();
  /// True when the stream has no queued work left.
  bool idle() const;
  const Heat3DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
