#pragma once
// Heat 3D backends, as for heat 2D: HostHeat3D steps a field with the `cpu`
// variant; heat3d_reference is the double yardstick written plainly and
// independently; DeviceHeat3D runs the GPU variants.
#include <memory>
#include <vector>

#include "stencilscope/heat2d_solver.hpp"  // ErrorNorms, compare_to_reference
#include "stencilscope/heat3d.hpp"

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
  const Heat3DSetup& setup() const;
  long steps_done() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ss
