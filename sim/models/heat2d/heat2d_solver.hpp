#pragma once
// Heat 2D backends. HostHeat2D steps a field in host memory with the `cpu`
// variant; heat2d_reference is the double-precision yardstick, written plainly and
// independently of the shared point function; DeviceHeat2D runs the GPU variants.
#include <memory>
#include <optional>
#include <vector>

#include "sim/bench/report.hpp"  // ErrorNorms, compare_to_reference
#include "sim/models/heat2d/heat2d.hpp"

namespace ss {

/// A disc painted into the field: cells whose centre lies within `radius` cells
/// of (x, y) (in cell units: cell (i, j) has its centre at (i + 0.5, j + 0.5))
/// are set to `value`.
struct Brush {
  double x = 0, y = 0;
  double radius = 8;
  double value = 1;
};

/// True when cell (i, j) lies under the brush.
SS_HD inline bool in_brush(const Brush& b, int i, int j) {
  const double dx = i + 0.5 - b.x, dy = j + 0.5 - b.y;
  return dx * dx + dy * dy <= b.radius * b.radius;
}

/// CPU backend: two padded buffers in host memory, stepped by the shared point
/// function (OpenMP over rows). Bitwise equal to the GPU variants of the same order.
template <typename T>
class HostHeat2D {
 public:
  explicit HostHeat2D(const Heat2DSetup& setup);

  /// Back to the initial condition at t = 0.
  void reset();
  /// Advances n steps.
  void step(int n);
  /// Changes the stencil order on the live field (the field is kept).
  void set_order(int order);

  const std::vector<T>& field() const { return field_[current_]; }
  std::vector<T>& mutable_field() { return field_[current_]; }
  /// Fills the buffer the next step writes with NaN (including its ghost frame).
  void poison_scratch();
  /// Rewrites the ghost frame of the current field from its interior (after edits).
  void refresh_ghosts();
  /// Paints a disc into the current field and refreshes the ghosts.
  void paint(const Brush& brush);
  /// Replaces the interior (row-major nx*ny) and the step count, e.g. a field
  /// carried over from the other backend; refreshes the ghosts.
  void load_interior(const T* interior, long steps_done);
  /// False when the interior holds NaN or Inf (the simulation blew up).
  bool all_finite() const;
  const Heat2DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_done_; }
  double time() const { return steps_done_ * setup_.dt; }

 private:
  Heat2DSetup setup_;
  std::vector<T> tables_;
  std::vector<T> field_[2];
  int current_ = 0;
  long steps_done_ = 0;
};

/// The double-precision reference as a stepper: plain loops over the full stencil
/// sum and its own ghost filling (its own unaligned layout too), so it checks the
/// shared point function and the ghost step rather than repeating them.
class ReferenceHeat2D {
 public:
  explicit ReferenceHeat2D(const Heat2DSetup& setup);
  /// Back to the initial condition at t = 0.
  void reset();
  /// Advances n steps.
  void step(int n);
  /// The interior, row-major nx*ny.
  std::vector<double> interior() const;
  /// Replaces the interior (row-major nx*ny) and the step count.
  void load_interior(const double* interior, long steps_done);
  /// Changes the stencil order on the live field.
  void set_order(int order);
  const Heat2DSetup& setup() const { return setup_; }
  long steps_done() const { return steps_done_; }

 private:
  std::size_t offset(int i, int j) const { return static_cast<std::size_t>(j + kGhost) * width_ + (i + kGhost); }
  double& at(std::vector<double>& v, int i, int j) const { return v[offset(i, j)]; }
  double at(const std::vector<double>& v, int i, int j) const { return v[offset(i, j)]; }
  void fill_ghosts(std::vector<double>& u, double t) const;

  Heat2DSetup setup_;
  int width_ = 0;
  std::vector<double> u_, next_;
  long steps_done_ = 0;
};

/// The reference solution after `steps` steps in double: interior, row-major nx*ny.
std::vector<double> heat2d_reference(const Heat2DSetup& setup, int steps);

/// GPU backend: two padded buffers in device memory on the object's own stream.
/// Every method throws ss::Error when there is no usable CUDA device.
template <typename T>
class DeviceHeat2D {
 public:
  explicit DeviceHeat2D(const Heat2DSetup& setup);
  ~DeviceHeat2D();
  DeviceHeat2D(DeviceHeat2D&&) noexcept;
  DeviceHeat2D& operator=(DeviceHeat2D&&) noexcept;
  DeviceHeat2D(const DeviceHeat2D&) = delete;
  DeviceHeat2D& operator=(const DeviceHeat2D&) = delete;

  /// Uploads the initial condition; t = 0.
  void reset();
  /// Enqueues n steps of the given GPU variant (asynchronous).
  void step(Heat2DVariant variant, int n);
  /// Runs n steps and returns their time in ms, measured with CUDA events.
  double timed_steps(Heat2DVariant variant, int n);
  /// Changes the stencil order on the live field.
  void set_order(int order);
  /// Fills the buffer the next step writes with NaN (ghost frame included).
  void poison_scratch();
  /// Waits for the stream.
  void synchronize();
  /// Copies the whole padded current field to the host (synchronous).
  std::vector<T> download() const;
  /// Copies the interior (row-major nx*ny) to dst, ordered after the queued steps (synchronous).
  void copy_interior_to_host(T* dst) const;
  /// Device pointer to the current field (padded layout of setup().grid). Valid
  /// until the next step; work on it must be ordered on native_stream().
  const T* device_field() const;
  /// The cudaStream_t (as void*, so this header needs no CUDA) that all work runs on.
  void* native_stream() const;
  /// Paints a disc on the device (no host copy of the field) and refreshes the ghosts.
  void paint(const Brush& brush);
  /// Replaces the interior (row-major nx*ny, host memory) and the step count;
  /// refreshes the ghosts (synchronous).
  void load_interior(const T* interior, long steps_done);
  /// Rewrites the ghost frame of the current field from its interior.
  void refresh_ghosts();
  /// False when the interior holds NaN or Inf (synchronous: waits for the stream).
  bool all_finite();
  /// Enqueues n steps between two timing events without waiting for them.
  void step_timed_async(Heat2DVariant variant, int n);
  /// The time of the last step_timed_async batch once the GPU has finished it
  /// (never blocks); empty while it is still running or when none was queued.
  std::optional<double> finished_batch_ms();
  /// True when the stream has no queued work left.
  bool idle() const;

  const Heat2DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
