#pragma once
// Heat 2D backends. HostHeat2D steps a field in host memory with the `cpu`
// variant; heat2d_reference is the double-precision yardstick, written plainly and
// independently of the shared point function; DeviceHeat2D runs the GPU variants.
#include <memory>
#include <vector>

#include "stencilscope/heat2d.hpp"

namespace ss {

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

/// The reference solution after `steps` steps in double: interior, row-major nx*ny.
/// Plain loops over the full stencil sum and its own ghost filling, so it checks
/// the shared point function and the ghost images rather than repeating them.
std::vector<double> heat2d_reference(const Heat2DSetup& setup, int steps);

/// Errors of a result against the reference, as in the CME 213 seed.
struct ErrorNorms {
  double ref_l2 = 0;    ///< sqrt(sum ref^2)
  double rel_linf = 0;  ///< max |a - ref| / max |ref|
  double rel_l2 = 0;    ///< sqrt(sum (a - ref)^2) / sqrt(sum ref^2)
  bool finite = true;   ///< false when the result holds NaN or Inf
};
template <typename T>
ErrorNorms compare_to_reference(const std::vector<T>& interior, const std::vector<double>& reference);

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
  /// Device pointer to the current field (padded layout of setup().grid).
  const T* device_field() const;

  const Heat2DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
